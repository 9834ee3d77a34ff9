package webshop

import (
	"fmt"

	"arew/tasks/textworld"
)

// The environment is served as "webshop" (package tasks/serve): its
// configuration is FromJSON's (so at most MaxPerCategory products per
// category, as everywhere) within textworld's serving bounds.
func init() {
	textworld.Serve("webshop", DefaultConfig, func(c Config) error { return textworld.ServeBounds(c.Sizes(), c.MaxSteps) }, New)
}

// Rules is the environment's part of a served episode's system prompt.
func (w *World) Rules() string {
	return fmt.Sprintf(`You are shopping in a web store for the product the instruction describes, by typing one action per step:
  search [ w1 ... wn ]   on the search page, with 1 to %d words
  click [ x ]            on a results page: a product (p17), next >, < prev, back to search;
                         on an item page: an option (a colour, a size), < prev, back to search, buy now
Every observation lists the actions that apply now; on the search page it suggests queries, and any search of known words applies. Any other action is answered "nothing happens ." and changes nothing but the step count.

Buying ends the episode. The reward is the share of the instruction's attributes, colour, size and price bound that the product and the chosen options meet (0 for a product of another category); buying a product that meets all of them is a success. An episode that does not buy within %d steps scores 0.`, MaxQuery, w.cfg.MaxSteps)
}
