// Package tasks defines the contract of arew's in-process active-reasoning
// simulators and the pieces they share; each task lives in a sub-package
// (pe, mediq, flodial, telecom). It imports only the standard library.
//
// # The episode protocol
//
// An episode is a token stream over the task's small vocabulary (Vocab: the
// structure tokens <pad>, <bos>, <eot> at ids 0, 1, 2, then the task's own
// words — numbers, names of attributes, items, facts, tools). The prompt
// states the task (a table of movies, a list of options, a table of yes/no
// questions, …) and ends with a header token naming the next turn. The agent
// then alternates, as in the released AREW code, an action round (AS: a
// query) and a guess round (BT: its belief as a numeric vector); the last
// round is the final answer, which is scored. After each agent turn (its
// tokens up to and including <eot>) the environment appends an observation:
// the reply, then the header of the next turn.
//
// Every turn is judged into a Step with its kind (AS or BT) and a
// directional critique z ∈ {−1, 0, +1} (docs/arew.md §4). Anything the agent
// can generate is accepted: tokens that do not parse are a malformed step
// (z = −1, the turn is consumed, the reply says "invalid"), a malformed final
// answer scores 0, and the turn limit ends every episode. The reward is the
// outcome alone, at the end.
//
// # Instances and splits
//
// Instance i of a split is made from InstanceSeed(split, i); the three
// splits draw their seeds from disjoint ranges, so no instance is in two of
// them. Train feeds SFT and RL rollouts, val every in-training evaluation and
// every tuning or selection rule, and test only a study's final numbers. The same configuration, split and index always give the same
// instance; each component of an instance (hidden state, tables, simulated
// user) draws from its own stream (InstanceRNG).
//
// # Exact belief measures
//
// The simulators know the hidden truth s* and the likelihood of every reply,
// so they can run exact Bayes over their hypothesis space. With the belief
// potential Ψ(b) = b(s*):
//
//	I_AS = Ψ(b̄_H) − Ψ(b̄_0)          b̄: exact Bayes over the agent's own queries
//	C_BT = Σ_t max(0, Ψ(b_{t+1}) − Ψ(b_t))   b: the agent's own stated beliefs
//
// beside the paper's proxies (AS: the fraction of queries with z = +1; BT: the
// mean per-round improvement of the belief potential). Each task package
// documents its hypothesis space and, where it is continuous, how it is
// discretised.
//
// # The text face
//
// For language-model agents every task also reads as text (TextFace, built
// by TextFaceOf from the task's TextFormat): a system prompt with the rules
// and the move formats, the prompt and each observation rendered word by
// word through the vocabulary (a task phrases its headers and line starts;
// any other token, a new one included, prints as its word), and a parser
// that reads a move from free-form output — the last <answer>…</answer>
// block, else the last line with a word; a leading "Label:" and the marks
// * and # dropped; words split on spaces, commas and brackets; case folded
// where the vocabulary allows (AnswerRules states it to the model). A move with a word outside
// the task's words, or with more words than the turn allows, becomes the
// action [Pad], which every task judges malformed (TestPadIsMalformed): the
// token protocol's penalty. A TextEpisode is the token episode underneath
// (text → tokens → Step), so critiques, reward and measures are equal by
// construction; TestTextEqualsTokens in package all checks it for every
// registered task, moves dressed in free-form ways; TestTextParse tables
// the tolerance, and FuzzTextParse and FuzzTextMoves feed arbitrary text.
//
// # Styles and the locked demonstrator
//
// A locked base (docs/arew.md §6, "The locked base"; §8, step 2) is a
// policy that can ask and track but does not: taught two behaviours told
// apart by a style token, and trained with RL under the hasty one. The
// tasks share the mechanism, so every setting's base is made the same way:
//
//   - Styles. A task config's Style field ("careful" or "hasty", checked
//     by CheckStyle) puts its token right after BOS (AppendStart); the
//     vocabulary gains both tokens as its last word group (StyleGroups),
//     so the two styles share one vocabulary and every other id is the
//     plain layout's. A style changes nothing else: critiques, rewards and
//     measures of the same moves are the plain layout's.
//   - The locked demonstrator, locked(q_AS, q_BT) (NewLocked): confidently
//     uninformed and well formed. On a query turn, with probability q_AS
//     the strong policy's query, else a query that cannot split the
//     consistent set C (its reply rules out nothing still consistent); on
//     a belief turn, with probability q_BT the strong policy's (exact
//     Bayes) belief, else the last stated belief held, the task's initial
//     belief before the first (for level beliefs LevelFormat.Held: every
//     hypothesis at the top level, and a final answer with a unique top on
//     the first of them). A task gives it its four moves (LockedMoves); it
//     draws one uniform number per turn before the move's own draws.
//
// flodial, pe, mediq and telecom implement both (telecom, without belief
// turns, maps them onto reads and decisions: its doc); taskstest.CheckLocked and
// CheckStyles hold each to the shared promises (with its knobs at 0 the
// demonstrator's beliefs are held and its queries do not split C; with both
// at 1 it plays the strong policy; a style only inserts its token). rl's
// LockedRecipe makes the two demonstration sources of a base from them.
//
// # Hybrid play: one skill at a time
//
// ScriptedTurns(task, spec, kind, seed) is task with every turn of one kind
// played by a scripted policy, folded into the prompt and observations: a
// learner evaluated on it plays only the other kind's turns, on the task's
// own token stream. With the strong policy's queries (kind AS) a learner's
// success measures its belief skill alone (docs/arew.md §8, "Capability:
// measured"). The wrapped task neither recycles episodes nor masks decoding.
// taskstest.CheckScriptedTurns holds it, on pe, mediq and flodial, to the
// task's own stream, steps and measures given the same actions.
//
// # Episodes without allocations
//
// A rollout plays thousands of episodes and reads none of their log text.
// A task that implements Recycler makes each new episode in the memory of
// the last one (the instance's generators reseeded in place by
// SeedInstance, the turn list restarted by Rounds.Restart) and leaves
// Step.Text empty; everything else is NewEpisode's, bit for bit. The
// helpers an episode calls every turn have in-place twins that compute the
// same numbers in memory the caller keeps: PlausibleInto, SplitsInto (with
// a Scratch), Belief.UpdateInto, LevelFormat.ParseInto (a bool where Parse
// formats an error), AppendPerHypothesisBT. TestSeedInstanceMatchesInstanceRNG,
// TestParseIntoMatchesParse and TestSplitsIntoMatchesSplits hold each twin
// to the original on dirty memory; flodial implements Recycler.
package tasks
