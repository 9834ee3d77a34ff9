package all

import (
	"fmt"

	"arew/tasks"
)

// A telecom call played as text: the first observation, a move inside
// <answer> tags, a move that is not the task's words (malformed, z = −1,
// exactly as the token protocol penalises it), and the close.
func ExampleTextEpisode() {
	task, err := tasks.New("telecom-solo", nil)
	if err != nil {
		panic(err)
	}
	face, err := tasks.TextFaceOf(task)
	if err != nil {
		panic(err)
	}
	ep, err := task.NewEpisode(tasks.Test, 0)
	if err != nil {
		panic(err)
	}
	te := tasks.NewTextEpisode(face, ep)
	fmt.Println(te.Observation())
	for _, text := range []string{"Let me look at the phone first.\n<answer>bar</answer>", "check the line", "Done."} {
		s, err := te.StepText(text)
		if err != nil {
			panic(err)
		}
		fmt.Printf("> %q\n  z=%+d malformed=%v parse error %q\n  %q\n", text, s.Step.Z, s.Step.Malformed, s.Parsed.Reason, s.Observation)
	}
	fmt.Println("reward", te.Measures().Reward)
	// Output:
	// Call: setting solo (you hold the account and the phone tools), no-data L3
	// Your move: one action.
	// > "Let me look at the phone first.\n<answer>bar</answer>"
	//   z=+0 malformed=false parse error ""
	//   "bars\nYour move: one action."
	// > "check the line"
	//   z=-1 malformed=true parse error "unknown word \"check\""
	//   "invalid (your last move was malformed)\nYour move: one action."
	// > "Done."
	//   z=+0 malformed=false parse error ""
	//   ""
	// reward 0
}
