package webshop

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// categories: each has six attribute words; a product has three of them.
var categories = []struct {
	name  string
	attrs []string
}{
	{"shirt", []string{"cotton", "slim", "longsleeve", "breathable", "organic", "vneck"}},
	{"shoes", []string{"leather", "running", "waterproof", "lightweight", "nonslip", "wide"}},
	{"headphones", []string{"wireless", "noisecancelling", "foldable", "bass", "overear", "microphone"}},
	{"backpack", []string{"waterproof", "laptop", "lightweight", "leather", "travel", "hiking"}},
	{"mug", []string{"ceramic", "insulated", "large", "dishwasher", "handmade", "travel"}},
	{"jacket", []string{"waterproof", "hooded", "fleece", "lightweight", "winter", "packable"}},
	{"watch", []string{"digital", "leather", "waterproof", "smart", "steel", "minimalist"}},
	{"speaker", []string{"bluetooth", "portable", "waterproof", "bass", "wireless", "smart"}},
}

// Categories names the product categories, in the catalogue's order:
// an instruction's family (its Category).
func Categories() []string {
	out := make([]string, len(categories))
	for i, c := range categories {
		out[i] = c.name
	}
	return out
}

var (
	colours = []string{"black", "white", "red", "blue", "green", "grey", "pink", "brown"}
	sizes   = []string{"small", "medium", "large", "xlarge"}
)

// Product is one catalogue entry. The results page shows its Title (the
// category and two of its three attributes) and price; the item page shows
// all attributes and the options.
type Product struct {
	ID       int
	Category string
	Attrs    []string // three
	Title    []string // category + two attributes
	Colours  []string // the colour options (two or three)
	Sizes    []string // the size options (two)
	Price    int      // dollars, 5 … 89
}

// Name is the product's token, "p17".
func (p Product) Name() string { return fmt.Sprintf("p%d", p.ID) }

// has: word is one of the product's indexed words (category, attributes,
// colours), which search matches.
func (p Product) has(word string) bool {
	return word == p.Category || slices.Contains(p.Attrs, word) || slices.Contains(p.Colours, word)
}

func pick(rng *rand.Rand, from []string, n int) []string {
	perm := rng.Perm(len(from))[:n]
	slices.Sort(perm) // keep the list order, so option lists read stably
	out := make([]string, n)
	for i, k := range perm {
		out[i] = from[k]
	}
	return out
}

// newCatalogue draws perCategory products per category; the slice order is
// the store's popularity order, which breaks search ties.
func newCatalogue(seed uint64, perCategory int) []Product {
	rng := rand.New(rand.NewPCG(seed^0x5E0F, 3))
	var out []Product
	for _, c := range categories {
		for k := 0; k < perCategory; k++ {
			p := Product{Category: c.name, Attrs: pick(rng, c.attrs, 3)}
			show := rng.IntN(3) // the attribute the title leaves out
			p.Title = []string{c.name}
			for i, a := range p.Attrs {
				if i != show {
					p.Title = append(p.Title, a)
				}
			}
			p.Colours = pick(rng, colours, 2+rng.IntN(2))
			p.Sizes = pick(rng, sizes, 2)
			p.Price = 5 + rng.IntN(85)
			out = append(out, p)
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	for i := range out {
		out[i].ID = i
	}
	return out
}

// Instruction is what the shopper asks for.
type Instruction struct {
	Category string
	Attrs    []string // two
	Colour   string
	Size     string
	Bound    int // price at most Bound dollars
	Target   int // the product it was drawn from (satisfies it fully)
}

// Words is the instruction text.
func (in Instruction) Words() []string {
	return []string{"i", "need", "a", in.Category, "that", "is", in.Attrs[0], "and", in.Attrs[1], ",",
		"in", in.Colour, "color", ",", "size", in.Size, ",", "price", "at", "most", fmt.Sprint(in.Bound), "dollars"}
}

func (in Instruction) key() string {
	return fmt.Sprint(in.Category, in.Attrs, in.Colour, in.Size, in.Bound)
}

// Reward is the spec's formula for buying p with the chosen colour and size
// ("" when none was chosen):
//
//	r = r_type · (#attribute matches + #option matches + 1[price ≤ bound]) / (#attributes + #options + 1)
//
// with r_type = 1 if p is of the requested category, else 0; two attributes
// and two options (colour, size) are requested, so the denominator is 5.
func Reward(in Instruction, p Product, colour, size string) float64 {
	if p.Category != in.Category {
		return 0
	}
	hits := 0
	for _, a := range in.Attrs {
		if slices.Contains(p.Attrs, a) {
			hits++
		}
	}
	if colour == in.Colour {
		hits++
	}
	if size == in.Size {
		hits++
	}
	if p.Price <= in.Bound {
		hits++
	}
	return float64(hits) / float64(len(in.Attrs)+2+1)
}

// satisfies: buying p with the requested options scores 1.
func satisfies(in Instruction, p Product) bool {
	return slices.Contains(p.Colours, in.Colour) && slices.Contains(p.Sizes, in.Size) &&
		Reward(in, p, in.Colour, in.Size) == 1
}

// newInstruction draws a target product and asks for two of its attributes,
// one of its colours, one of its sizes and a bound at or above its price.
func newInstruction(cat []Product, rng *rand.Rand) Instruction {
	p := cat[rng.IntN(len(cat))]
	attrs := pick(rng, p.Attrs, 2)
	bound := min((p.Price+1+rng.IntN(20)+9)/10*10, 100)
	return Instruction{
		Category: p.Category, Attrs: attrs,
		Colour: p.Colours[rng.IntN(len(p.Colours))], Size: p.Sizes[rng.IntN(len(p.Sizes))],
		Bound: bound, Target: p.ID,
	}
}
