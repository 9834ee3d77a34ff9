package rl

import "fmt"

// Head-rows training graphs (PolicyConfig.HeadRows): the actor's and a
// separate critic's graphs compute their last block, final LayerNorm and
// heads at the minibatch's agent predictions only (model.NewHeadRowsGraph),
// the only rows their losses read (the surrogate, entropy, KL and value
// losses all aggregate over the mask). A graph's capacity is fixed, so it
// is rebuilt (and its loss recompiled) when a minibatch has more agent
// predictions than it holds: the capacity is the most seen so far,
// rounded up to headRowsStep, starting from a quarter of the rows. The
// unused capacity changes no bit of the results
// (model.TestHeadRowsGraphUnusedCapacity), so a resumed run, whose
// capacity starts afresh, runs as the uninterrupted one
// (TestResumeIsBitwise/ppo-head-rows).
//
// The old log-probs and values the trainer computes with these graphs
// (prepare) are those of the agent predictions, as before; the values at
// the other predictions, which neither GAE nor the value loss reads, are 0.

// headRowsStep is the granularity of a head-rows graph's capacity.
const headRowsStep = 32

// headCapacity is the capacity for need listed rows of n.
func headCapacity(need, n int) int {
	return min(n, max(1, (need+headRowsStep-1)/headRowsStep*headRowsStep))
}

// agentRows lists the loaded rows' agent predictions (mask 1) as trunk
// rows r·T + j, increasing, into r.agent: once per loaded minibatch
// (fitHeadRows), read by every graph setInputs loads.
func (r *rows) agentRows() []int32 {
	r.agent = r.agent[:0]
	for i, m := range r.packed.Mask {
		if m == 1 {
			r.agent = append(r.agent, int32(i))
		}
	}
	return r.agent
}

// sharedCritic is the critic config when the policy's value head is the
// critic, else nil.
func (s trainerSpec) sharedCritic() *CriticConfig {
	if s.critic != nil && s.critic.Mode == CriticShared {
		return s.critic
	}
	return nil
}

// fitHeadRows rebuilds the actor's and the separate critic's head-rows
// graphs with room for the loaded rows' agent predictions when they have
// too little (nothing to do without PolicyConfig.HeadRows).
func (t *trainer) fitHeadRows() error {
	s, r := t.spec, t.rows
	if !s.policy.HeadRows {
		return nil
	}
	need := len(r.agentRows())
	if need <= t.actor.g.HeadCapacity() {
		return nil
	}
	heads := headCapacity(need, r.B*r.T)
	actor, err := newActorGraph(t.policy, r, s.policy, s.algo, s.sharedCritic(), heads)
	if err != nil {
		return fmt.Errorf("%s: head rows: %w", s.algo, err)
	}
	t.actor.g.Close()
	t.actor = actor
	if t.criticG != nil {
		critic, err := newCriticGraph(t.critic, r, *s.critic, heads)
		if err != nil {
			return fmt.Errorf("%s: head rows: %w", s.algo, err)
		}
		t.criticG.g.Close()
		t.criticG = critic
	}
	return nil
}
