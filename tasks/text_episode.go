package tasks

// TextEpisode plays an episode through its text face. It is the token
// episode underneath: each text move is parsed to tokens and passed to the
// same Episode.Step, so the critiques, the reward and the measures of a
// text episode are those of the same moves as tokens (TestTextEqualsTokens
// in package all checks it for every registered task). Both faces may be
// used on one episode: Step with tokens, StepText with text.
type TextEpisode struct {
	Episode
	Face *TextFace
}

// NewTextEpisode wraps ep with the face of its task.
func NewTextEpisode(face *TextFace, ep Episode) *TextEpisode {
	return &TextEpisode{Episode: ep, Face: face}
}

// Observation is the prompt in words: the first message of the episode.
func (e *TextEpisode) Observation() string { return e.Face.Render(e.Prompt()) }

// TextStep is one text move and what came of it.
type TextStep struct {
	Parsed      Parsed
	Step        Step
	Observation string  // the reply and the next turn's header, in words
	ObsTokens   []Token // the same observation as tokens
}

// StepText parses text as the move of the current turn and plays it. The
// only error is a step after the end, as for Episode.Step.
func (e *TextEpisode) StepText(text string) (TextStep, error) {
	p := e.Face.Parse(e.Next(), text)
	obs, s, err := e.Step(p.Tokens)
	if err != nil {
		return TextStep{}, err
	}
	return TextStep{Parsed: p, Step: s, Observation: e.Face.Render(obs), ObsTokens: obs}, nil
}
