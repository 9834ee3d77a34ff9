// Package webshop is a toy WebShop: a generated store in which an agent
// follows a shopping instruction by searching and clicking through search,
// results and item pages, scored by the attribute reward of the WebShop
// paper (docs/act.md: the third column of the ACT table). It implements
// textworld.Env.
//
// # The store
//
// The catalogue is fixed by the seed: PerCategory = 30 products in each of
// 8 categories (shirt, shoes, headphones, backpack, mug, jacket, watch,
// speaker), 240 in all, in a shuffled "popularity" order. A product has
// three of its category's six attributes, two or three of 8 colours, two of
// 4 sizes and a price of 5 … 89 dollars. Its title — what a results page
// shows — is the category and two of the three attributes; the item page
// shows everything. PerCategory is at most MaxPerCategory = 37: a search
// naming every category lists the whole catalogue, and its page count
// must stay a number word (≤ textworld.MaxNumber = 100 pages of 3);
// Validate refuses larger stores (TestLargestStoreCountsEveryPage).
//
// An instruction is drawn from a target product: two of its attributes, one
// of its colours, one of its sizes and a bound above its price, rounded up
// to tens:
//
//	i need a mug that is ceramic and large , in red color , size small , price at most 30 dollars
//
// # Pages and actions
//
//	search [ w1 … wn ]   (search page; 1 ≤ n ≤ 8)  → results page 1
//	click [ p17 ]        (results page: a listed product) → its item page
//	click [ next > ], click [ < prev ]  (results pages; < prev on an item page: back to the results)
//	click [ back to search ]            (results and item pages)
//	click [ red ], click [ small ]      (item page: choose an option)
//	click [ buy now ]                   (item page) → the episode ends, scored
//
// Search ranks the products sharing at least one word with the query
// (category, attributes — the hidden one included — and colours) by the
// number of distinct query words they have, ties in popularity order; a page
// shows PageSize = 3. Anything not applicable is answered "nothing happens
// ." and changes nothing (TestInapplicableChangesNothing).
//
// Admissible lists the clickable elements of the page; on the search page,
// where WebShop allows free text, it lists five queries built from the
// instruction (the category alone, with each attribute, with both, with the
// colour), and IsAdmissible accepts any well-formed search there
// (TestAnySearchApplies). The expert's query is the listed "both
// attributes" one.
//
// Instruction 2 of the test split, played by the expert (the Example):
//
//	i need a watch that is digital and smart , in grey color , size large , price at most 20 dollars
//	you are on the search page .
//	search [ digital smart watch ] | results page 1 of 14 . p39 : watch digital smart , $ 9 .
//	                                 p54 : watch digital waterproof , $ 69 . p82 : watch smart steel , $ 7 .
//	click [ p39 ]     | item p39 : digital waterproof smart watch , $ 9 . color : grey brown .
//	                    size : large xlarge . you chose color none , size none .
//	click [ grey ]    | … you chose color grey , size none .
//	click [ large ]   | … you chose color grey , size large .
//	click [ buy now ] | thank you for shopping . your score is 100 percent .
//
// # Reward
//
// Buying product p with colour c and size s (empty if not chosen) scores
//
//	r = r_type · (#attributes of p asked for + [c asked] + [s asked] + [price ≤ bound]) / (2 + 2 + 1)
//
// with r_type = 1 if p is of the requested category, else 0 (WebShop's r_type
// also compares titles; here the category is the type). Success is r = 1. An
// episode that does not buy within MaxSteps = 15 steps scores 0. TestReward
// checks the formula on hand cases (all match, no options, wrong colour, one
// attribute, over and at the bound, wrong type).
//
// # The expert
//
// ExpertAction knows the catalogue (as WebShop's human demonstrators could
// open every item): it searches for the two requested attributes and the
// category, pages to the first result that satisfies the instruction
// fully, opens it, chooses the colour, then the size, and buys; from a
// learner's state it goes back (a product that does not satisfy, results
// that hold none). The target has every query word, so a satisfying product
// is always among the top results: TestExpertSolvesEverySplit gets reward 1
// on every instruction of both splits, in 5.45 steps on average (search, 0–3
// pages, open, colour, size, buy). After 1–8 random admissible actions it
// still succeeds unless the 15-step cap runs out first (TestExpertRecovers:
// 461 of the 484 games left open by the random prefix).
//
// # Splits
//
// Train has 600 instructions, Test 200 and Val 200 (textworld.RNG); a test
// draw that equals a training instruction (category, attributes, options
// and bound) is drawn again, so no test instruction was seen in training,
// and a validation draw that equals a training or a test one
// (TestDeterminismAndSplits). Val is for every choice a study makes, so
// that Test is read only for final numbers. The catalogue is shared, as in
// WebShop. There is no OOD split.
//
// # Sizing: why imitation should not reach 100%
//
// The expert reads item pages it never opens: it knows which results
// satisfy the instruction. The learner sees titles that hide one attribute
// and never the options, so among results that look alike it must open
// items and go back, which the expert data never shows. The
// first-result policy (the expert's search, the first result, the requested
// options when offered, buy; it reads only the pages) measures what the
// visible text gives: mean reward 0.76 but success 0.27 — close to the
// paper's IL success of 28% on WebShop. The training split gives 3268
// expert pairs with 6.5 admissible actions per state; the vocabulary has 460
// tokens (240 of them product ids) and a state prompt (k = 2) is 135 tokens
// on average, 179 at most.
//
// # Baselines
//
// go test -run TestBaselines -v ./tasks/webshop/ (every instruction; random
// seeded PCG(7, 7)):
//
//	split  policy        mean reward  success  mean steps
//	train  random        0.285        0.007    10.75
//	train  first-result  0.761        0.268     4.03
//	train  expert        1.000        1.000     5.45
//	test   random        0.274        0.000    10.51
//	test   first-result  0.763        0.270     4.07
//	test   expert        1.000        1.000     5.47
//
// The parsers are fuzzed: FuzzParseAction (text round trip) and FuzzStep
// (arbitrary token ids interleaved with expert actions).
package webshop
