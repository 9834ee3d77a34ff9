// Package alfworld is a toy ALFWorld: a text household in which an agent
// carries out one of ALFWorld's six task types by typed commands, with an
// expert planner, admissible commands at every step, fixed seeded splits and
// an out-of-distribution test split (docs/act.md: the environment of the ACT
// paper's first two columns). It implements textworld.Env.
//
// # The world
//
// A game is one room — kitchen, bathroom, bedroom or livingroom — with
// numbered receptacles (cabinet 1 … cabinet 6, fridge 1, sinkbasin 1,
// countertop 2, …; catalog.go lists the classes, whether they open, and how
// many a layout holds) and 5–12 numbered objects lying in them; bedrooms and
// livingrooms have a desklamp. Openable receptacles start closed. The agent
// starts in the middle of the room and carries at most one object.
//
// Task types (goal text in brackets; T an object type, C a receptacle class):
//
//	pick & place     put a T in/on C          [your task is to : put a apple in countertop .]
//	examine in light look at T under the desklamp: use the lamp while holding a T
//	clean            put a clean T in/on C    clean T with sinkbasin N, then place
//	heat             put a hot T in/on C      heat T with microwave N, then place
//	cool             put a cool T in/on C     cool T with fridge N, then place
//	pick two         put two T in/on C        two objects of type T end in class C
//
// Success is binary: the goal holds after a step (for examine: "use desklamp
// N" while holding a T). An episode ends at success or after MaxSteps = 50
// steps.
//
// # Commands
//
// The grammar (command.go; numbers are 1 … 100):
//
//	go to R | open R | close R | take O from R | put O in R | put O on R
//	clean O with R | heat O with R | cool O with R | use O | examine O | examine R
//	look | inventory
//
// A command applies when it names things of this game and its preconditions
// hold (rules.go): go to another receptacle; open/close the receptacle you
// face; take from an open (or not openable) receptacle you face, hands
// empty; put the held object with the receptacle's own preposition (in for
// containers, on for surfaces); clean/heat/cool the held object at the
// sinkbasin/microwave/fridge, if its type allows; use the desklamp where it
// stands; examine what you face or hold. Anything else — unparsable tokens
// included — is answered "nothing happens ." and changes nothing
// (TestInapplicableChangesNothing). Admissible lists exactly the commands
// that apply, in a fixed order; IsAdmissible agrees with it. The list is
// built from a pruned set of candidates (what the agent faces and holds);
// TestAdmissibleIsComplete checks it against the full grammar over every
// object and receptacle of the game.
//
// Instance 3 of the OOD split, one of its unusual games, played by the
// expert (the Example; "|" separates command and observation; the plate
// hides in the fridge, where training never puts plates):
//
//	your task is to : put a hot plate in cabinet .
//	you are in the middle of a kitchen . looking quickly around you , you see a cabinet 1 ,
//	  a cabinet 2 , a cabinet 3 , a cabinet 4 , a drawer 1 , … , a garbagecan 1 .
//	go to fridge 1                 | you arrive at the fridge 1 . the fridge 1 is closed .
//	open fridge 1                  | you open the fridge 1 . in the fridge 1 , you see a plate 1 .
//	take plate 1 from fridge 1     | you pick up the plate 1 from the fridge 1 .
//	go to microwave 1              | you arrive at the microwave 1 . the microwave 1 is closed .
//	heat plate 1 with microwave 1  | you heat the plate 1 using the microwave 1 .
//	go to cabinet 1                | you arrive at the cabinet 1 . the cabinet 1 is closed .
//	open cabinet 1                 | you open the cabinet 1 . in the cabinet 1 , you see nothing .
//	put plate 1 in cabinet 1       | you put the plate 1 in the cabinet 1 .   (success)
//
// # The expert
//
// ExpertCommand reads the hidden state, as ALFWorld's handcoded expert reads
// the PDDL state: it walks straight to the target's receptacle, opens it if
// closed, takes the target, treats it at the device, walks to the first
// receptacle of the destination class, opens it if needed and puts it
// (pick two: twice; examine: to the lamp, then use it). It replans from any
// state, so it can label states a learner reaches (holding a wrong object:
// put it down first). No command is wasted, so its trajectories are optimal
// up to the choice among receptacles of the destination class.
// TestExpertSolvesEverySplit plays it on every game of every split: success
// 1, every expert command admissible. TestExpertRecovers hands over to it
// after 1–8 random admissible commands on the OOD games: it solved all 402
// games so tested (nothing in the household is irreversible).
//
// # Splits: in distribution and out of distribution
//
// A layout is a room type and a count per receptacle class. Train and Test
// (the in-distribution split) draw their layout from a seen pool of
// Layouts = 40 layouts (ten per room type) and put every object at one of
// its type's usual classes (apples in the fridge or on a countertop).
// TestOOD draws fresh layouts whose signature is not in the pool. In a
// share Config.OODUnusual of its games (default 0.25: games 3, 7, 11, …;
// Config.Unusual) it also hides the task's targets in the type's other
// classes (an apple on the dining table, in a cabinet or in the garbage
// can), where no training game ever puts an object of that type; the
// other games keep the usual placements, so they are new to the learner
// by their layout alone, as ALFWorld's unseen split is (new rooms, the
// same placement statistics). Task type, target, destination, distractors
// and placements are drawn per instance from textworld.RNG.
// A Test draw that repeats a training game is drawn again. Val (140
// games), the validation split for every choice a study makes, is drawn as
// Test is, from its own seed range, and a draw that repeats a training or
// a Test game is drawn again (textworld.Keys).
// TestSplitsDisjointAndOOD checks that no game appears in two splits, that
// all six task types occur in each, that no OOD layout occurs in training,
// that the unusual OOD targets lie in classes where training never placed
// their type and the others at a usual class, and that at least half the
// OOD games are usual; TestUnusualShare that exactly ⌊n·s⌋ of the first n
// are unusual. (Until 2026-12-02 every OOD game was unusual, OODUnusual 1:
// no guess a learner could imitate ever found the target, and every row
// of the ACT table sat at 0–1% OOD, docs/act.md §9.)
//
// # Sizing: why imitation should not reach 100%
//
// The defaults (Train 400 games, Test 140, TestOOD 134, the sizes of
// ALFWorld's seen and unseen test splits) give 2533 expert (state, action)
// pairs for training, about 19 admissible commands per state and 232 tokens
// of vocabulary; a state rendered as a prompt (textworld.State.Tokens, k = 2)
// is 179 tokens on average at the expert's states, 325 at most. The expert knows where the target is; the learner sees only
// the room's receptacle list until it walks somewhere. In distribution a
// guess uniformly among the receptacles of the target type's usual classes
// finds the target first 42% of the time (the "prior first-guess hit" of
// TestBaselines); otherwise the learner must search, which the expert data
// never shows, and a failed "take" is "nothing happens .". Out of
// distribution the same guess hits 35% of the time: in 46% of the usual
// games, in none of the unusual quarter, where the target is somewhere
// training never put its type. So the ceiling
// of imitation is set by search, not by memory: IL should land below 100%
// in distribution and somewhat lower out of distribution, and judging
// actions (ACT) has room to help the learner recover. Train, Layouts,
// OODUnusual and MaxSteps are the knobs (FromJSON); fewer training games
// or more layouts lower the ceiling further.
//
// # Baselines
//
// go test -run TestBaselines -v ./tasks/alfworld/ (every game of each split;
// the random policy seeded PCG(7, 7)):
//
//	split     policy  success  mean steps  nothing happens  repeated failures
//	train     random  0.000    50.00       0.000            0.00
//	train     expert  1.000     6.33       0.000            0.00
//	test      random  0.007    49.87       0.000            0.00
//	test      expert  1.000     6.36       0.000            0.00
//	test-ood  random  0.000    50.00       0.000            0.00
//	test-ood  expert  1.000     6.49       0.000            0.00
//
// The random policy picks among admissible commands only, so it never gets
// "nothing happens"; it wanders (open, close, look) and almost never
// completes a task in 50 steps. The parsers are fuzzed: FuzzParseCommand
// (text → command → text round trip) and FuzzStep (arbitrary token ids,
// interleaved with expert commands).
package alfworld
