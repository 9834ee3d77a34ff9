package act

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"arew/model"
	"arew/optim"
	"arew/rl"
	"arew/tasks"
	"arew/tasks/textworld"
)

// klState is one training state of the KL anchor (ActorKL): the actor's
// prompt, the commands listed there that fit (deduplicated, each ended by
// EOT), for each command the tokens the prefix tree allows before each of
// its tokens, and π_start over the commands.
type klState struct {
	prompt  []tasks.Token
	answers [][]tasks.Token
	allowed [][][]tasks.Token
	ref     []float64
}

// klStates builds the anchor's states at the pairs' states: the commands
// of the trie decoder (Env.Constraint, DecodeTrie) at each, the same set
// in the same order as the tree lists them. A state with no command that
// fits is left out.
func klStates(env *Env, pairs []textworld.Pair, maxAction int) ([]klState, error) {
	out := make([]klState, 0, len(pairs))
	for _, p := range pairs {
		trie := env.Constraint(DecodeTrie, p.State, maxAction)
		var answers [][]tasks.Token
		var walk func(prefix []tasks.Token)
		walk = func(prefix []tasks.Token) {
			for _, tok := range trie.Next(prefix) {
				next := append(slices.Clip(prefix), tok)
				if tok == tasks.EOT {
					answers = append(answers, next)
				} else {
					walk(next)
				}
			}
		}
		walk(nil)
		if len(answers) == 0 {
			continue
		}
		s := klState{prompt: p.State.Tokens(env.Vocab), answers: answers, allowed: make([][][]tasks.Token, len(answers))}
		for a, ans := range answers {
			s.allowed[a] = make([][]tasks.Token, len(ans))
			for j := range ans {
				s.allowed[a][j] = trie.Next(ans[:j])
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("actor term: no state lists a command that fits")
	}
	return out, nil
}

// actorKL is the KL anchor as a term of the ACT stage's GRPO loss
// (rl.ExtraLoss): at every policy step, β times the mean over B states of
// KL(π_start(·|s) ‖ π_θ(·|s)), each π the actor's distribution over the
// state's listed commands under the trie mask (doc.go, "The actor term").
//
// It runs on a masked prefix graph of m: group p is a state's prompt
// (all but its last token), answer block (p, a) is the prompt's last
// token then command a, and row j of the block predicts the command's
// token j (EOT last) with the tree's mask, so Σ_j Logp = log π(a|s)
// exactly. With the weights w_a = π_start(a|s) fixed, the loss
//
//	β/B Σ_s Σ_a w_a (log w_a − log π_θ(a|s))
//
// has gradient −β w_a / B on every row of command a: the gradient of the
// KL, since the renormalisation over the commands is the tree's, inside
// every row's masked softmax.
type actorKL struct {
	beta   float64
	m      *model.Model
	g      *model.Graph
	shape  model.PrefixShape
	states []klState
	order  []int
	next   int
	batch  []int // the states of the graph's current inputs

	trunk, positions, lens, targets []int32
	bias                            []float32

	sum   float64 // the values since the last Mean
	steps int
}

// newActorKL builds the term on m (trained in place by the stage) for the
// states; π_start is m as it is now, computed here on the same graph.
func newActorKL(m *model.Model, states []klState, beta float64, batch int, seed uint64) (*actorKL, error) {
	if len(states) == 0 {
		return nil, fmt.Errorf("actor term: no states")
	}
	if !m.Config.LMHead {
		return nil, fmt.Errorf("actor term: the policy has no LM head")
	}
	sh := model.PrefixShape{Groups: min(batch, len(states))}
	for _, s := range states {
		sh.Prompt = max(sh.Prompt, len(s.prompt)-1)
		sh.Answers = max(sh.Answers, len(s.answers))
		for _, a := range s.answers {
			sh.AnswerLen = max(sh.AnswerLen, len(a))
			if len(s.prompt)-1+len(a) > m.Config.Context {
				return nil, fmt.Errorf("actor term: a prompt of %d tokens and a command of %d exceed the context %d", len(s.prompt), len(a), m.Config.Context)
			}
		}
	}
	g, err := m.NewPrefixGraph(sh, true)
	if err != nil {
		return nil, fmt.Errorf("actor term: %w", err)
	}
	k := &actorKL{beta: beta, m: m, g: g, shape: sh, states: states,
		order:     rand.New(rand.NewPCG(seed, 0x6b1)).Perm(len(states)),
		trunk:     make([]int32, sh.Rows()),
		positions: make([]int32, sh.Rows()),
		lens:      make([]int32, sh.Groups),
		targets:   make([]int32, g.Batch*g.SeqLen),
		bias:      make([]float32, g.Batch*g.SeqLen*m.Config.Vocab),
	}
	loss, err := optim.SliceLoss(g.Logp, "actor_kl", g.Batch*g.SeqLen, k.loss)
	if err == nil {
		err = g.Compile(loss)
	}
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("actor term: %w", err)
	}
	if err := k.reference(); err != nil {
		g.Close()
		return nil, err
	}
	return k, nil
}

// reference fills every state's π_start from the model as it is.
func (k *actorKL) reference() error {
	for lo := 0; lo < len(k.states); lo += k.shape.Groups {
		idx := make([]int, 0, k.shape.Groups)
		for i := lo; i < min(lo+k.shape.Groups, len(k.states)); i++ {
			idx = append(idx, i)
		}
		if err := k.load(idx); err != nil {
			return err
		}
		if err := k.g.Forward(); err != nil {
			return fmt.Errorf("actor term: %w", err)
		}
		logp := model.Float32s(k.g.Logp)
		for p, i := range idx {
			s := &k.states[i]
			lq := k.logProbs(logp, p)
			s.ref = make([]float64, len(lq))
			z := 0.0
			for a, l := range lq {
				s.ref[a] = math.Exp(l)
				z += s.ref[a]
			}
			for a := range s.ref {
				s.ref[a] /= z // 1 to float32 rounding: the tree normalises
			}
		}
	}
	k.batch = nil
	return nil
}

// load sets the graph's inputs to the states idx (at most Groups).
func (k *actorKL) load(idx []int) error {
	sh, V := k.shape, k.m.Config.Vocab
	clear(k.trunk)
	clear(k.positions)
	clear(k.lens)
	clear(k.targets)
	clear(k.bias)
	np := sh.Groups * sh.Prompt
	for p, i := range idx {
		s := k.states[i]
		n0 := len(s.prompt) - 1
		k.lens[p] = int32(n0)
		copy(k.trunk[p*sh.Prompt:], s.prompt[:n0])
		for j := range n0 {
			k.positions[p*sh.Prompt+j] = int32(j)
		}
		for a, ans := range s.answers {
			base := (p*sh.Answers + a) * sh.AnswerLen
			for j, tok := range ans {
				in := s.prompt[n0]
				if j > 0 {
					in = ans[j-1]
				}
				k.trunk[np+base+j] = in
				k.positions[np+base+j] = int32(n0 + j)
				k.targets[base+j] = tok
				row := k.bias[(base+j)*V : (base+j+1)*V]
				for v := range row {
					row[v] = rl.MaskBias
				}
				for _, ok := range s.allowed[a][j] {
					row[ok] = 0
				}
			}
		}
	}
	if err := k.g.SetPrefixInputs(k.trunk, k.positions, k.lens, k.targets); err != nil {
		return fmt.Errorf("actor term: %w", err)
	}
	if err := k.g.SetLogitBias(k.bias); err != nil {
		return fmt.Errorf("actor term: %w", err)
	}
	k.batch = idx
	return nil
}

// logProbs is log π(a|s) for every command of the state in group p of the
// loaded batch, from the graph's Logp (x).
func (k *actorKL) logProbs(x []float32, p int) []float64 {
	s := k.states[k.batch[p]]
	out := make([]float64, len(s.answers))
	for a, ans := range s.answers {
		base := (p*k.shape.Answers + a) * k.shape.AnswerLen
		for j := range ans {
			out[a] += float64(x[base+j])
		}
	}
	return out
}

// loss is the SliceLoss of the loaded batch: its value and the gradient
// w.r.t. every row's Logp (zero on padding).
func (k *actorKL) loss(x []float64) (float64, []float64, error) {
	grad := make([]float64, len(x))
	if len(k.batch) == 0 || k.states[k.batch[0]].ref == nil {
		return 0, grad, nil
	}
	c := k.beta / float64(len(k.batch))
	total := 0.0
	for p, i := range k.batch {
		s := k.states[i]
		for a, ans := range s.answers {
			w := s.ref[a]
			if w == 0 {
				continue
			}
			base := (p*k.shape.Answers + a) * k.shape.AnswerLen
			lq := 0.0
			for j := range ans {
				lq += x[base+j]
				grad[base+j] = -c * w
			}
			total += w * (math.Log(w) - lq)
		}
	}
	return c * total, grad, nil
}

// Accumulate is one step's term (rl.ExtraLoss): the next B states in the
// order, forward and backward, the gradient added into m's Grad. It
// returns β times the batch's mean KL.
func (k *actorKL) Accumulate() (float64, error) {
	idx := make([]int, k.shape.Groups)
	for p := range idx {
		idx[p] = k.order[k.next%len(k.order)]
		k.next++
	}
	if err := k.load(idx); err != nil {
		return 0, err
	}
	if err := k.g.Run(); err != nil {
		return 0, fmt.Errorf("actor term: %w", err)
	}
	v, err := k.g.Loss()
	if err != nil {
		return 0, fmt.Errorf("actor term: %w", err)
	}
	if err := k.g.AccumulateGrads(); err != nil {
		return 0, fmt.Errorf("actor term: %w", err)
	}
	k.sum += v / k.beta
	k.steps++
	return v, nil
}

// Mean is the mean KL (without β) of the steps since the last call; NaN
// when there were none.
func (k *actorKL) Mean() float64 {
	if k.steps == 0 {
		return math.NaN()
	}
	m := k.sum / float64(k.steps)
	k.sum, k.steps = 0, 0
	return m
}

func (k *actorKL) Close() { k.g.Close() }
