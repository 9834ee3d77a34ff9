// Package textworld holds what arew's three text-agent environments share
// (alfworld, webshop, sciworld: the toy versions of the environments of the
// ACT paper, docs/act.md): the Env interface, splits with an
// out-of-distribution test split, the word-level vocabulary convention,
// states rendered as prompts, scripted policies, and the measures (online
// success, offline next-action accuracy, repeated failures). It imports
// only the standard library and tasks.
//
// These environments do not speak the tasks.Task protocol of the AREW
// simulators (action and belief rounds judged by critiques, a final answer):
// an agent here issues commands, one per step, until the goal is reached or
// the step cap; the outcome is the reward. So they are not in the tasks
// registry; each package has its World with NewEnv(split, index).
//
// # Text as tokens
//
// Every observation, goal and action is a sequence of words, each one token
// of the environment's vocabulary (NewVocab): the structure tokens <pad>
// <bos> <eot> at ids 0–2, then the core words (Markers, NothingHappens, the
// numbers 0 … MaxNumber), then the environment's own words. Punctuation is a
// word ("you arrive at the fridge 1 ."). Because an action is a token
// sequence, "is this the expert's action" is exact equality (Equal), and a
// policy generates an action token by token, ending it with <eot>. A command
// that does not parse or does not apply is answered NothingHappens
// ("nothing happens .") and changes nothing but the step count.
//
// # States
//
// The context of the ACT paper: the task description, the last k = 2
// observation/action pairs (History), the current observation and the
// admissible actions, rendered by State.Tokens as
//
//	<bos> <task> goal (<obs> o <act> a)… <obs> o_t <adm> a1 <sep> a2 … <act>
//
// after which the policy writes its action (TestStateTokens shows one).
//
// # The ACT formats
//
// The remaining markers (<choose>, action, :, <reflect>, expert,
// alternative, ->, so, is, better) make the two token formats the ACT
// pipeline trains on, defined here so every environment can render them
// (critic.go, TestCriticFormats):
//
//	CriticActionPrompt  <bos> action 1 : x <sep> action 2 : y <task> … <adm> … <act>      → x | y <eot>
//	CriticPrompt        <bos> action 1 : x <sep> action 2 : y <task> … <adm> … <choose>   → "1" | "2" <eot>
//	Reflection          <reflect> alternative a⁻ -> o⁻ expert a⁺ -> o⁺ so expert is better
//
// ParseCopiedChoice reads a critic that answers in the action channel, by
// writing out the chosen action after <act> as the actor does: exactly one
// of the two candidates, token for token. ParseChoice reads the slot
// answer: exactly one token, 1 or 2; anything else is a format error
// (FuzzParseChoice).
// Outcome runs an action on a Clone of the environment, so the expert's and
// an alternative's observations can be compared from one state.
//
// # Splits and seeds
//
// Train, Test and Val are tasks.Train, tasks.Test and tasks.Val: instance
// i draws from tasks.InstanceRNG on the disjoint seed ranges of
// tasks.InstanceSeed. TestOOD uses the Test range on streams shifted by 2³²
// (RNG), so its draws differ from Test's (TestSplitsAndSizes); what makes
// it out of distribution is the environment's generator. Val, the
// validation split, is drawn as Test is; each environment draws a Val game
// again when it equals a training or a Test game (Keys), so choosing on
// Val never reads a Test game. Every split has a fixed size (Sizes): the
// training split is a finite set of games, so the amount of expert data is a
// setting, not an accident.
//
// # Measures
//
// Play runs a policy to the end and records, per step, the state shown, the
// action, whether it was admissible and the next observation. Evaluate gives
// mean reward, success rate, mean length, the share of steps answered
// NothingHappens, and RepeatedFailures: the number of steps that repeat the
// previous action right after it got NothingHappens (the ACT paper's case
// study of an imitation agent that "opens the drawer" thirty times).
// ExpertPairs and Accuracy are the offline next-action measure (sciworld's
// metric): the fraction of (state, expert action) pairs where a predictor
// returns exactly the expert's action. TestPlayAndMeasures checks each on a
// toy environment whose numbers are known by hand.
//
// CheckRecovery plays a few random admissible actions and then hands over
// to the expert: each environment's TestExpertRecovers uses it to show that
// its planner replans from states off its own path, the states a learner
// reaches, so the planner can label them too.
package textworld
