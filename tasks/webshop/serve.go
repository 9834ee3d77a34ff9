package webshop

import (
	"encoding/json"
	"fmt"

	"arew/tasks"
	"arew/tasks/textworld"
)

// The environment is served as "webshop" (package tasks/serve): its
// configuration is FromJSON's, within textworld's serving bounds and with
// at most maxServedPerCategory products per category.
func init() {
	textworld.Register("webshop", func(raw json.RawMessage) (textworld.World, error) {
		cfg := DefaultConfig()
		if err := tasks.DecodeConfig(raw, &cfg); err != nil {
			return nil, fmt.Errorf("webshop: %w", err)
		}
		if err := textworld.ServeBounds(cfg.sizes(), cfg.MaxSteps); err != nil {
			return nil, fmt.Errorf("webshop: %w", err)
		}
		if cfg.PerCategory > maxServedPerCategory {
			return nil, fmt.Errorf("webshop: PerCategory must stay at most %d when served, got %d", maxServedPerCategory, cfg.PerCategory)
		}
		w, err := New(cfg)
		if err != nil {
			return nil, err
		}
		return w, nil
	})
}

// maxServedPerCategory keeps every results page's count within the number
// words: a search can match every product, and "results page 1 of N"
// needs N ≤ textworld.MaxNumber (a larger catalogue, which Validate
// allows, makes such a search panic on a word outside the vocabulary).
var maxServedPerCategory = PageSize * textworld.MaxNumber / len(categories)

// Rules is the environment's part of a served episode's system prompt.
func (w *World) Rules() string {
	return fmt.Sprintf(`You are shopping in a web store for the product the instruction describes, by typing one action per step:
  search [ w1 ... wn ]   on the search page, with 1 to %d words
  click [ x ]            on a results page: a product (p17), next >, < prev, back to search;
                         on an item page: an option (a colour, a size), < prev, back to search, buy now
Every observation lists the actions that apply now; on the search page it suggests queries, and any search of known words applies. Any other action is answered "nothing happens ." and changes nothing but the step count.

Buying ends the episode. The reward is the share of the instruction's attributes, colour, size and price bound that the product and the chosen options meet (0 for a product of another category); buying a product that meets all of them is a success. An episode that does not buy within %d steps scores 0.`, MaxQuery, w.cfg.MaxSteps)
}
