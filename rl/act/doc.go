// Package act is the ACT pipeline (agentic critical training, docs/act.md)
// on arew's three text environments (tasks/alfworld, tasks/webshop,
// tasks/sciworld): the initial policy π_θ0, imitation learning, the critic
// data, critical training, RL action training, the Early Experience
// baseline, their compositions, the evaluation and the cross-size
// transfer. Every stage is a function from data and a model to a new model
// (the input is never modified; model.Model.Clone), the datasets are JSONL (WritePairs,
// WriteCritic) and the checkpoints safetensors (model.Save, model.Load).
//
// # The stages
//
//	stage             function               input → output
//	expert data       Env.ExpertPairs        games → (s, a⁺) pairs
//	π_θ0              InitialPolicy          a share of the pairs → model
//	IL                TrainIL                model, pairs → model
//	critic data       CriticData             π_θ0, games → D_critic = {(s, a⁺, a⁻)}
//	ACT               TrainACT               model, D_critic → model
//	RL                TrainRL                model, pairs → model
//	Early Experience  TrainEarlyExperience   model, pairs, D_critic → model
//	evaluation        EvaluateOnline, NextActionAccuracy, ChoiceAccuracy
//	the table         Run                    Config → Report (+ files)
//	cross-size        Transfer               two Configs → Report
//
// A state s is the task, the last k = 2 observation/action pairs, the
// current observation and the admissible actions, as textworld.State.Tokens
// renders it, ending with <act>; an action is its tokens and <eot>.
//
// # Decoding
//
// Every row writes its actions under one decoder, Config.Decoder
// (Decoding; docs/act.md §11). "trie", the default, keeps the decoder on
// the commands listed at the state: a prefix tree over them, each ended by
// <eot> (Trie, trie.go), gives at every step the tokens that continue some
// listed command, and the token is drawn from the model's softmax
// renormalised over those, q(j) = exp(z_j) / Σ_{k allowed} exp(z_k)
// (greedy: the best allowed token). "grammar" keeps it on the commands of
// the environment's grammar, applicable or not (Env.Grammar, compiled
// from the environment's Grammar); "free" is the plain language model. The
// decoder holds wherever an action is generated: the online evaluation,
// the next-action accuracy, the sampling of D_critic, and the RL stage's
// rollouts. The critic's answer is an action too, under a mask of its own:
// the tree of its two candidates ("The critic in the action channel").
//
// In the RL stage the policy that acts is q, so q is what GRPO trains: the
// rollouts record the log-probs renormalised under the mask, each token's
// allowed set goes with its trajectory, and rl's trainer computes the old
// and the new log-probs and the entropy on a masked graph (the same bias
// under the logits; rl.MaskedTask, model.NewMaskedGraph). The ratio is then
// q_new/q_old and the gradient ∇ log q: a token the mask forces has
// probability 1 and gets no gradient, and raising the expert's command
// takes mass from the other listed commands only, never from tokens the
// decoder cannot write. (The other choice, sampling from q but training log
// π over the whole vocabulary as rl does under top-k, would be off-policy
// and would spend the gradient pushing mass off tokens that are masked
// anyway.)
//
// Under the trie no action can be inapplicable, so no failure can repeat;
// the failure-recovery count of the paper's case study is measured on the
// ID games decoded free as well (RowResult.FreeID; the study's
// repeated-failure column reads it).
//
// # π_θ0
//
// The paper starts from a pretrained model that can already follow the
// formats; a fresh toy transformer cannot. So π_θ0 is a short SFT of a
// fresh model (InitialPolicy: a seeded draw of a share of the expert pairs,
// Config.InitShare) on those pairs plus FormatData: for the same states, a
// choice prompt between the expert's action and another listed one, shown
// twice, answered once with each candidate (written out after <act>, or
// "1" and "2" under the slot format). π_θ0 thus knows the command grammar
// and the answer format, has seen too little to act like the expert, and
// the format examples carry no judgement: a prompt seen with both answers
// is fit at 1/2 each (TestFormatDataCarriesNoJudgement,
// TestActionFormatDataCarriesNoJudgement). For the slot they are what
// makes learning possible: without them every sampled choice of a fresh
// model is malformed, every reward of a GRPO group is R_fmt, and the group
// advantages are all zero. (A first version answered each prompt once by
// a coin; π_θ0 memorised the coins, and GRPO from it stayed at chance: see
// "Learnability".) In the action channel the mask already keeps every
// answer well formed; the examples still show the prompt, so the ACT
// stage does not start on a prompt π_θ0 has never seen. That critic does
// not start at chance, though: π_θ0 reads the prompt as an actor would,
// and the alternative is one of its own samples at the state, so it tends
// to prefer the alternative (docs/act.md §12).
//
// # The critic data
//
// CriticData replays the expert on the training games; at each expert
// state it samples K (default 4) actions from π_θ0 at temperature 1, under
// the run's decoder (so under the trie every alternative is a listed
// command, admissible; under the grammar a command), and keeps those that are not the expert's action, not a repeat of an earlier
// sample, and not malformed (no <eot> within MaxAction+1 tokens, or a
// structure token; with CollectConfig.Grammar also a sample that is not a
// command: Alternatives, TestAlternativesDropsExpertDuplicatesAndMalformed).
// Each kept a⁻ gives an example with a fair coin for the order of a⁺ and
// a⁻ in the prompt, whether a⁻ is admissible at s (Env.Admits: listed, or
// webshop's free search on the search page), and the observations that
// a⁺ and a⁻ produce from s, run on clones of the environment
// (textworld.Outcome). The states are those of Env.ExpertPairs on the same
// games, so every row trains on the same expert data.
//
// # The rewards
//
// For the choice prompt (ChoiceFormat.Prompt: "action 1 : x <sep> action 2
// : y", then the state, then <act>) the answer is one of the two
// candidates and <eot>, read by textworld.ParseCopiedChoice; under the
// slot format (the prompt ending with <choose>) it is at most two tokens,
// read by textworld.ParseChoice (exactly "1" or "2" before <eot>). For the
// next action the answer is the tokens before <eot>; it parses when it is
// a command of the environment's grammar (Env.Parse).
// With c the answer, a_c the action it names (or generates) and a⁺ the
// expert's action,
//
//	R(c) = R_fmt                                        if c does not parse
//	R(c) = R_acc·[a_c = a⁺] + R_adm·[a_c admissible]·[a_c ≠ a⁺ or reading "any"]   otherwise
//
// with R_acc = 1, R_adm = 0.1, R_fmt = −0.5 (Shaping; the reading
// "non-expert", the default, or "any" is Shaping.AdmReading). So under the
// default a correct pick earns 1, an admissible wrong one 0.1, an
// inadmissible wrong one 0 and a malformed answer −0.5; under "any" a
// correct pick earns 1.1 (TestShapingReward, TestChoiceEpisodeRewards,
// TestActionEpisodeRewards, TestAnyReadingRewardsTheExpertPickToo). An
// answer that fills its turn without <eot> is unfinished and does not
// parse. The ACT stage uses this shaping; the RL stage of DefaultConfig
// and the presets uses R_acc alone (AccuracyOnly, R_adm = R_fmt = 0).
// Under the shaping, the tiny model's RL stage collapsed onto a few "go
// to" commands: at π_θ0's level (a quarter of the sampled actions the
// expert's) most groups of G = 4 hold no expert action, so their
// advantages are decided by R_fmt and R_adm alone, and a short command
// that is always admissible maximises those; on ALFWorld (400 games,
// seed 1) held-out next-action accuracy fell (0.24 → 0.19 in 40 updates)
// while the malformed share fell from 0.23 to 0.04. With R_acc alone a
// group without the expert's action has zero advantage, and the same
// budget raised the accuracy (0.24 → 0.30 in 60 updates; docs/act.md §7).
// The price: a policy whose samples are all malformed (the ACT model, on
// one seed of act-alfworld) gets no gradient at all.
//
// # The critic in the action channel
//
// The paper's R_acc compares the critic's answer with the expert's action,
// and its critic writes that action in the tags the actor uses, so a
// rewarded choice is a rewarded action. The first version here answered
// with the slot number after its own <choose> tag. The numbers "1" and
// "2" are ordinary tokens of commands ("go to shelf 1"), and GRPO with no
// anchor taught the model to end a prompt with a number or with <eot>:
// the ACT model's next-action accuracy fell to 0–5 % (docs/act.md §9–§10).
//
// So the critic now answers as an actor (Config.Choice "action", the
// default). Its prompt is the two candidates, then the state exactly as
// the actor sees it, ending with <act> (textworld.CriticActionPrompt), and
// its answer is a candidate written out and <eot>: an action in the
// actor's channel. It is decoded under a prefix tree of exactly the two
// candidates (ChoiceFormat.Constraint, the Trie of trie.go), so every
// answer is one of them (TestActionCriticWritesOnlyACandidate): where the
// two agree ("go to" in "go to shelf 1" and "go to desk 2") the tree has
// one child and the token is forced; at the first token where they differ
// it has two, and that token is the choice. R_acc = 1 when the written
// action is a⁺, R_adm when it is a⁻ and a⁻ applies (TestActionChoiceReward).
//
// Renormalisation. The critic samples from q, the model's softmax
// renormalised over the tree's children at each step, so the probability
// of writing candidate a is the product of q over its tokens, and the two
// products sum to 1 (TestActionChoiceRenormalised: 1 ± 10⁻⁵ on rl's masked
// graph, while the plain softmax gives the two sequences much less). GRPO
// then has to train q, not π: the rollout records log q of each sampled
// token with its allowed set, and rl's trainer computes the old and new
// log-probs, the ratio, the entropy and the KL term on the masked graph
// (rl.MaskedTask, model.NewMaskedGraph), the same machinery as the RL
// stage's. Training log π instead would be off-policy (the samples come
// from q) and would spend the gradient pushing mass off tokens the mask
// removes anyway; under q a forced token has log q = 0 and no gradient,
// and the update moves mass only between the two candidates at the token
// where they part: the judgement, and nothing else of the output. The slot
// answer ("slot") stays for comparison; it is decoded free. On one
// ALFWorld seed (docs/act.md §12) the critic climbs from 0.31 to 0.71
// held out and the ACT model keeps its next-action accuracy under the
// trie (0.51 → 0.52; the slot: 0.55 → 0.47 and 0.53 → 0.46), but decoded
// free it falls (0.24 → 0.04): nothing trains, or anchors, the mass the
// tree excludes.
//
// # GRPO on the choice task
//
// ChoiceTask and ActionTask present a dataset as a tasks.Task whose
// instance i is example i: a prompt, one final agent turn, the shaped
// reward, no observation. So rl.NewGRPO runs on them unchanged: each update
// takes Prompts consecutive examples (cycling through the data), samples G
// answers for each from q at temperature 1 (π itself for the slot), and
// gives every token of answer i the group advantage A_i = (R_i − mean_G
// R)/(std_G R + ε). For the choice the answer is y = (a_c, <eot>), c the
// picked candidate, so the update follows
//
//	∇J = E_s E_{c∼q(·|s)} [ A(c) ∇ log q(a_c, <eot> | s) ] − β ∇ KL(q ‖ q_start)
//
// which raises the probability of the candidate whose reward beats the
// group mean. β is the KL anchor to the policy the stage starts from
// (DefaultACTKL = 0.04, rl's k3 estimator on the sampled tokens; the
// frozen reference is the stage's initial model; RefKL in the metrics).
// Because the order of a⁺ and a⁻ is a coin, a constant slot scores 1/2 in
// expectation; in the action channel the order does not matter, but
// always writing the candidate π_θ0 prefers, its own sample, scores below
// 1/2. Only reading the two actions against the state beats chance, which
// is the judgement ACT is after, and it is read from generated tokens, not
// from a head. The per-update Success of TrainACT's metrics is the share
// of sampled choices that named a⁺ (the ACT-stage accuracy), and
// ChoiceAccuracy the greedy one on held-out examples, decoded under the
// same tree. The RL stage is the same trainer on ActionTask: a contextual
// bandit over the expert states, single-step and offline, as in the paper.
//
// That the reward reaches the right slot is shown first on a choice a tiny model
// can learn (short states; the alternative always the same inapplicable
// command, on a random side): from a format-only π_θ0 that does not judge
// (greedy held-out accuracy 0.30), 60 updates raise it to 1.00 and the
// sampled accuracy from 0.27 to 0.97 (TestACTLearnsALearnableChoice; the
// learnability and smoke-study tests named here run under -tags long). The
// RL stage on three short states, each wanting its own command among four,
// lifts the sampled success from 0.26 to 0.55 and the greedy accuracy to
// 0.67, chance being 1/3, decoded free; under the trie, where every sample
// is one of the four and GRPO trains the renormalised policy, from 0.36 to
// 0.99 and 1.00 (TestRLLearnsALearnableNextAction). Both stages
// shuffle their examples once (the datasets come grouped by game and state,
// and in that order consecutive updates each fit one state and undo the
// last: the RL test oscillated between 0.02 and 0.57 without it).
//
// # Early Experience
//
// ReflectionData turns each critic example into the state without its final
// <act>, then textworld.Reflection ("<reflect> alternative a⁻ -> o⁻ expert
// a⁺ -> o⁺ so expert is better"), <act>, a⁺ and <eot>, all of it learnt;
// TrainEarlyExperience fine-tunes on these mixed with the plain expert
// examples for exactly IL's optimiser steps: each of the IL budget's
// epochs passes over as many examples of the mix as IL's epoch has pairs,
// windows of one seeded order of the mix taken in turn (TrainSFTSteps;
// TestEarlyExperienceMatchesILSteps). Epochs over the whole mix, as first
// built, gave it about four times IL's steps on ALFWorld (docs/act.md §9). At evaluation every policy is prompted
// with the state ending in <act> and acts directly, so the reflections act
// as an auxiliary target, not as a chain of thought at test time (a choice
// the paper leaves open at this scale; TestILAndReflectionData).
//
// # Compositions and evaluation
//
// Run builds the rows of docs/act.md §2 from one π_θ0 and one D_critic:
// prompting (π_θ0 itself), act (TrainACT from π_θ0), il, early-experience,
// il-w-act (TrainIL from the ACT model), rl (TrainRL from π_θ0) and
// rl-w-act (TrainRL from the ACT model). The SFT rows share Config.IL, the
// RL rows Config.RL. Each row is measured under the run's decoder, online
// (EvaluateOnline: greedy, the last k turns shown, textworld.Evaluate on
// the first instances of Test and TestOOD: success, mean reward, the share
// of "nothing happens", the share of malformed actions, and
// RepeatedFailures, the failure-recovery count: steps that repeat the
// previous action right after it got "nothing happens ."), offline
// (NextActionAccuracy on held-out expert states: sciworld's metric) and as
// a critic (ChoiceAccuracy on held-out critic examples). A learned policy
// never sees the environment's internals; a state longer than the context
// loses its oldest turns first (TestPolicyDropsHistoryToFit). Transfer
// samples D_critic with a source preset's π_θ0 and trains a target
// (smaller) preset's rows on it (TestTransferReusesTheLargerPresetsData).
//
// Why live environments are not rl episodes: a tasks.Episode is one
// growing token stream, while the paper's agent sees a fresh window of the
// last k turns at every step, so online play goes through textworld.Play
// with a model Policy rather than rl.Roller. All training is single-step
// (SFT on states, GRPO on single-turn tasks), where the two views agree.
//
// # Files
//
// With Config.Dir set, Run writes pairs.jsonl (the training expert pairs),
// held_out.jsonl, critic.jsonl (D_critic as collected, or as read from
// Config.CriticFrom), checkpoints/<row>.safetensors and report.json (the
// config, the model config, every stage's per-epoch or per-update metrics,
// each row's measures and timings). TestRunWritesEveryRow runs all seven
// rows on three games and reloads every checkpoint; TestJSONLRoundTrip and
// TestReadRejectsBadFiles cover the datasets; TestRunOnEveryEnvironment
// runs ACT and RL on each environment.
//
// # Learnability
//
// The choice prompt puts the two candidates right after <bos>, before the
// state (textworld.CriticPrompt). After the state, where a state of 100 to
// 316 tokens puts them at a different position in every prompt, the tiny
// model (learned absolute positions, two layers, d = 32) does not find
// them: SFT on the correct choices of 1460 ALFWorld examples memorises the
// training set and stays at chance held out (0.49 on 428 examples from 20
// test games), at the small preset too; with the candidates first and the
// whole state after them it reaches 0.78–0.82. So what matters is where
// the candidates sit, not the data size or the content (docs/act.md §7 has
// the table). TestSupervisedALFWorldChoiceGeneralises is that check on the
// shipped format.
//
// Two defaults of the ACT stage follow from docs/act.md §7's runs.
// FormatData shows every prompt with both answers: with one random answer
// per prompt, π_θ0 keeps a random preference per prompt and GRPO from it
// stays at 0.52–0.56 held out. DefaultGRPOStage is 64 prompts × G = 4, the
// 256 answers one minibatch, lr 1e-3: minibatches of 16 answers make the
// steps noise, and at lr 2e-3 the policy can collapse onto one slot; under
// the default the held-out greedy accuracy climbs from 0.49 to 0.63 in 80
// updates (sampled 0.48 → 0.72) on π_θ0's own critic data.
// TestACTLearnsTheALFWorldChoice asserts the climb on the real critic data:
// 0.52 → 0.65 held out in 100 updates, sampled 0.48 → 0.69.
//
// # The actor term
//
// The ACT stage's GRPO samples answers to the critic prompt (candidates,
// then the state) and its KL anchor is on that prompt too; the actor's own
// prompt (the state alone, then the action) is never in its loss, yet the
// shared weights move it. GRPOStage.Actor (an ActorTerm, off by default)
// adds, after each GRPO update, a few SFT steps on the actor's prompt at
// the training states, with a target of one of two kinds:
//
//   - the expert's action (ActorExpert): L = −log π_θ(a* | s), the IL loss
//     mixed into the stage;
//   - an action drawn from the policy the stage starts from (ActorAnchor,
//     one per state, drawn when the stage begins): L = −log π_θ(a | s),
//     a ∼ π_start(· | s). Its expectation is
//     KL(π_start ‖ π_θ) + H(π_start), so its expected gradient,
//     −Σ_a π_start(a | s) ∇ log π_θ(a | s) = −∇ Σ_a π_θ(a | s) = 0 at
//     π_θ = π_start, vanishes where the actor has not moved and pulls it
//     back where it has. One sample per state is a noisy estimate: it also
//     pulls towards that sample;
//   - the start policy's greedy action (ActorGreedy): it holds the
//     decisions greedy evaluation plays, with no sampling noise, but
//     sharpens the actor rather than keeping its distribution.
//
// The steps have their own AdamW state, at the GRPO stage's rate unless
// set. TestActorAnchorHoldsAndPullsBack (-tags long) and TestACTStageActorTerm check
// both; docs/act.md §15 measures them.
//
// The fourth source (ActorKL) is the anchor made exact and put into the
// stage's own loss. At state s let π(a | s) be the actor's probability of
// command a under the trie: each token's softmax renormalised over the
// tokens the tree allows after the prefix, so the commands listed at s
// (those that fit) carry all the mass and π is what the trie decoder
// samples. Every GRPO policy step then minimises
//
//	L_GRPO + β · (1/B) Σ_s Σ_a π_start(a | s) (log π_start(a | s) − log π_θ(a | s))
//
// over B training states, the sum over every listed command: the forward
// KL(π_start ‖ π_θ), with no sampling noise. With π_start fixed (computed
// once, from the model the stage starts from), its gradient is
// −(β/B) Σ_s Σ_a π_start(a | s) ∇ log π_θ(a | s): a masked NLL of every
// command weighted by the start's probability. The renormalisation over
// the commands needs no term of its own, since it is the tree's, inside
// each token's masked softmax; and at π_θ = π_start the gradient is
// −(β/B) Σ_s ∇ Σ_a π_θ(a | s) = 0. The term runs on a masked prefix graph
// (each state's prompt once, its commands as answer blocks) and adds its
// gradient before the step's clipping (rl.ExtraLoss), so one AdamW step
// is taken on the sum. TestActorKLMatchesPlainLoop checks the value and
// the gradient along a random direction against a plain loop over the
// commands (the decoder's logits one token at a time, MaskedLogSoftmax);
// TestACTStageKLAnchor that the stage's actor stays near the start;
// docs/act.md §16 measures it.
//
// # Studies
//
// RunStudy runs a StudyConfig (the presets of cmd/train -act: act-table1,
// act-transfer and their smoke versions act-smoke, act-transfer-smoke):
// every run of Run into <dir>/<env>/seed-<s>/ (a transfer: own/ and
// transfer/), then summary.json (Summary: each cell mean ± std over the
// seeds in percent, the paper's number beside it, the average over
// ALFWorld ID, WebShop and ScienceWorld, the failure-recovery count, the
// ACT stage's curves and the paper's orderings checked per seed),
// report.md and plots/ (act-stage.svg, table.svg). TestSmokeStudies (-tags
// long) runs both smoke presets, TestTinyStudyRunsAndStops a tiny study in
// the default run; TestSummaryOfKnownRuns checks the arithmetic.
package act
