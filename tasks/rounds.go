package tasks

import "fmt"

// Rounds is the turn bookkeeping of the protocol the released AREW code
// uses and the PE, MediQ and FloDial simulators share: n rounds, each an
// action turn (AS: a query) then a guess turn (BT: a stated belief), so turn
// 2r is round r's query and turn 2r+1 its belief; the last belief is the
// final answer. An episode embeds Rounds and gets Done and Steps from it;
// its Step calls Play with its own query and belief judges.
type Rounds struct {
	n     int
	turn  int
	steps []Step
}

// NewRounds starts n ≥ 1 rounds.
func NewRounds(n int) Rounds { return Rounds{n: n} }

// Restart starts n ≥ 1 rounds again in r's memory: as NewRounds(n), except
// that the list of steps reuses its array, so a Steps slice returned before
// must no longer be used (an episode made again in place, tasks.Recycler).
func (r *Rounds) Restart(n int) {
	clear(r.steps)
	*r = Rounds{n: n, steps: r.steps[:0]}
}

// Turn is the 0-based index of the current turn (2n once the episode ends).
func (r *Rounds) Turn() int { return r.turn }

// Round is the 0-based index of the current round.
func (r *Rounds) Round() int { return r.turn / 2 }

// QueryTurn reports whether the current turn is a query (AS) turn.
func (r *Rounds) QueryTurn() bool { return r.turn%2 == 0 }

// LastRound reports whether the current turn belongs to the last round, so
// its query's reply is followed by the final answer rather than a guess.
func (r *Rounds) LastRound() bool { return r.turn/2 == r.n-1 }

// FinalTurn reports whether the current turn is the final answer.
func (r *Rounds) FinalTurn() bool { return r.turn == 2*r.n-1 }

// Done reports whether all 2n turns have been played.
func (r *Rounds) Done() bool { return r.turn >= 2*r.n }

// Steps lists the judged steps so far. Callers read it; an append by a
// caller never reaches the episode's own list.
func (r *Rounds) Steps() []Step { return r.steps[:len(r.steps):len(r.steps)] }

// Next is the turn the agent takes now: queries may use queryMax tokens,
// beliefs beliefMax (EOT included in both).
func (r *Rounds) Next(queryMax, beliefMax int) Turn {
	if r.QueryTurn() {
		return Turn{Kind: AS, MaxTokens: queryMax}
	}
	return Turn{Kind: BT, Final: r.FinalTurn(), MaxTokens: beliefMax}
}

// Play judges the current turn with query or belief (by its parity), stamps
// the step with its turn index, records it and moves on. After the last
// turn it returns an error naming the task.
func (r *Rounds) Play(task string, action []Token, query, belief func([]Token) ([]Token, Step)) ([]Token, Step, error) {
	if r.Done() {
		return nil, Step{}, fmt.Errorf("%s: step after the episode ended", task)
	}
	judge := belief
	if r.QueryTurn() {
		judge = query
	}
	obs, s := judge(action)
	s.Turn = r.turn
	r.steps = append(r.steps, s)
	r.turn++
	return obs, s, nil
}
