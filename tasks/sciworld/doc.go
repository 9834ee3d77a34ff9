// Package sciworld is a toy ScienceWorld: a small lab of five rooms in
// which an agent carries out one of five procedures by template actions,
// with an expert planner and admissible actions at every step. Its metric,
// as in the ACT paper's fourth column (docs/act.md), is offline next-action
// accuracy: the fraction of held-out expert states at which a policy's
// action equals the expert's (World.Dataset, textworld.Accuracy). It
// implements textworld.Env, so it can be played online too.
//
// # The lab
//
// The hallway joins the kitchen (stove, freezer, cupboard, counter,
// drawer), the workshop (circuit, redbox, greenbox, workbench, toolbox), the
// greenhouse (flowerpot, shelf, crate) and the studio (table, cabinet); the
// hallway has a bench and a closet. Cupboard, freezer, drawer, toolbox,
// crate, cabinet and closet start closed. Task items (a pot of water, a bowl
// with a substance, a test object, a seed, a waterjug) start on or in one of
// the 11 placeable fixtures, drawn per game; 2–4 distractor objects lie
// around; the agent starts in a random room and sees only its room.
//
// Procedures (goal text abridged):
//
//	boil          boil water . first , focus on the water .
//	melt          melt the chocolate | butter | wax | ice . first , focus on it .
//	conductivity  find out if the fork is electrically conductive . first , focus on the fork .
//	              if it is conductive , move it to the redbox . if it is not , … the greenbox .
//	grow          grow a plant from the seed . first , focus on the seed .
//	mix           make greenpaint | purplepaint | orangepaint . when you are done , focus on it .
//
// Physics, applied by "wait": what sits (at any depth) on an active stove
// heats one step — a solid melts at once, water boils on the second step; a
// seed in a flowerpot holding water sprouts, then grows into a plant. The
// circuit, when activated, lights its bulb if a conductor lies on it ("the
// bulb turns on ." / "the bulb stays off ."). "mix bowl" turns two different
// primary paints in the bowl into their mixture. Success: the goal's focus
// was set and its state reached (boiled, melted, grown; for conductivity the
// object filed in the right box; for mix, focusing on the product). As in
// ScienceWorld, focusing on anything but the task's object, or filing the
// object in the wrong box, ends the game as a failure. MaxSteps = 40.
//
// # Actions
//
//	look around | inventory | wait | go to ROOM | open X | close X
//	activate X | deactivate X | pick up X | move X to Y | pour X into Y
//	focus on X | mix X
//
// Thing names are single words. go to reaches adjacent rooms only (through
// the hallway); the other verbs need their things at hand (in the room with
// no closed container on the way, or in the inventory); move puts a
// portable thing in a container or on a fixture; pour empties a carried
// container's substance (or pours a paint) into a container. Anything else
// is "nothing happens ." and changes nothing
// (TestInapplicableChangesNothing); Admissible lists exactly the applicable
// actions, 18 on average at the expert's states, built from the things at
// hand and checked against every template over every name of the lab
// (TestAdmissibleIsComplete).
//
// A test game (instance 6) played by the expert (the Example):
//
//	your task is to melt the ice . first , focus on the ice .
//	this is the hallway . you see a bench , a closet that is closed .
//	go to kitchen      | you move to the kitchen . this is the kitchen . you see a stove that is off ,
//	                     a freezer that is closed , a cupboard that is closed , a counter , a drawer that is closed .
//	open freezer       | the freezer is now open . you see a bowl in the freezer , ice that is solid in the bowl .
//	focus on ice       | you focus on the ice .
//	move bowl to stove | you move the bowl to the stove .
//	activate stove     | the stove is now on .
//	wait               | you wait . the ice melts .   (success)
//
// # The expert
//
// ExpertCommand (expert.go) knows where everything is, walks there through
// the hallway, opens what is closed on the way and follows the procedure;
// "bring X to Y" moves X when both are at hand, else picks X up, else walks
// towards Y, and the grow expert takes the waterjug along when it passes
// it. TestExpertSolvesEverySplit: success on every game of both splits,
// every expert action admissible, all five procedures in each split.
//
// From states off its path it replans: it follows the substance wherever
// its container went, takes a wrong paint back out of the bowl, and
// reports Stuck — and only looks around — when the learner's actions made
// the task impossible (the substance poured into a fixture, the water
// poured away, a needed paint mixed into another colour).
// TestExpertRecovers: after 1–8 random admissible actions, 81 test games
// were still open and the expert solved 78; the 3 others were stuck or ran
// out of steps.
//
// # Splits and the dataset
//
// Train has 200 games, Test 100 and Val 100 (textworld.RNG); a test draw
// equal to a training game is drawn again, and a validation draw equal to a
// training or a test game (TestDeterminismAndSplits). Val is for every
// choice a study makes, so that Test is read only for final numbers.
// Dataset(split, k)
// is the expert's (state, action) pairs of every game of a split, each
// state with the last k observation/action pairs: 1665 training pairs and
// 870 held-out test pairs at k = 2. The vocabulary has 232 tokens; a state
// prompt is 157 tokens on average, 294 at most (training pairs).
//
// # Sizing: why imitation should not reach 100%
//
// The expert walks to the room and opens the container where the item is;
// the learner has not seen it. TestPrivilegedShare counts the expert steps
// that leave the hallway for a room, or open a container, on the way to a
// thing no earlier observation showed: 125 of the 870 test steps (14.4%). A
// learner that has mastered every procedure must still guess those (1 of 4
// rooms, 1 of up to 3 closed containers), which caps its accuracy near
// 1 − 0.144 · 3/4 ≈ 0.89; short contexts (k = 2 forgets what was done three
// steps ago) and 1665 training pairs spread over five procedures, about 19
// admissible actions each, keep a small model well below that. More
// placeable containers or fewer training games (FromJSON) lower it further.
//
// # Baselines
//
// go test -run 'TestBaselines|TestPrivilegedShare' -v ./tasks/sciworld/
// (random seeded PCG(7, 7)):
//
//	split  policy  next-action accuracy  online success  mean steps
//	train  random  0.062                 0.000            3.15
//	train  expert  1                     1.000            8.32
//	test   random  0.061                 0.000            3.30
//	test   expert  1                     1.000            8.70
//
// Random episodes are short because a random "focus on" usually picks the
// wrong thing and fails the game. The parsers are fuzzed:
// FuzzParseCommand (text round trip) and FuzzStep (arbitrary token ids
// interleaved with expert actions).
package sciworld
