package telecom

import (
	"fmt"
	"strings"
)

// fault is one way the customer's line or phone can be broken.
type fault uint8

const (
	fAirplane  fault = iota // phone: airplane mode on                      → no service
	fSIM                    // phone: SIM card dead                         → no service
	fSuspended              // account: prepaid balance empty, line suspended → no service
	fBroken                 // phone: radio hardware broken (unfixable)     → no service
	fData                   // phone: mobile data switched off              → no data
	fQuota                  // account: data allowance used up              → no data
	fRoaming                // abroad, roaming not enabled on the line      → no data
	fDevRoam                // abroad, data roaming off on the phone        → no data
	fPlan                   // account: voice-only plan                     → no data
	numFaults
)

var faultNames = [numFaults]string{"airplane", "sim", "suspended", "broken", "data", "quota", "roaming", "droam", "plan"}

func (f fault) String() string {
	if f < numFaults {
		return faultNames[f]
	}
	return fmt.Sprintf("fault(%d)", uint8(f))
}

// config is a fault configuration: a set of faults as a bit mask. It is the
// hypothesis of the exact-Bayes measures.
type config uint16

func (c config) has(f fault) bool { return c&(1<<f) != 0 }

func (c config) String() string {
	var parts []string
	for f := fault(0); f < numFaults; f++ {
		if c.has(f) {
			parts = append(parts, f.String())
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// compatible says whether two faults may occur together. A voice-only plan
// has no data allowance to use up, so quota and plan exclude each other.
func compatible(a, b fault) bool {
	return !(a == fQuota && b == fPlan || a == fPlan && b == fQuota)
}

// faultByName maps a configured fault name to its fault.
func faultByName(name string) (fault, bool) {
	for f, n := range faultNames {
		if n == name {
			return fault(f), true
		}
	}
	return 0, false
}

// prior is the distribution instances are drawn from: with probability
// 1 − pTwo one fault, uniform over the enabled faults; with probability pTwo
// two, uniform over the compatible pairs of enabled faults (all mass on
// single faults when no pair exists).
type prior struct {
	configs  []config  // every configuration with positive mass, in a fixed order
	mass     []float64 // prior mass of configs[i]; sums to 1
	expected []world   // expectedWorld(configs[i])
	index    map[config]int
}

func newPrior(enabled []fault, pTwo float64) prior {
	var singles, pairs []config
	for i, a := range enabled {
		singles = append(singles, 1<<a)
		for _, b := range enabled[i+1:] {
			if compatible(a, b) {
				pairs = append(pairs, 1<<a|1<<b)
			}
		}
	}
	if len(pairs) == 0 {
		pTwo = 0
	}
	p := prior{index: map[config]int{}}
	add := func(cs []config, total float64) {
		if total == 0 {
			return
		}
		for _, c := range cs {
			p.index[c] = len(p.configs)
			p.configs = append(p.configs, c)
			p.mass = append(p.mass, total/float64(len(cs)))
			p.expected = append(p.expected, expectedWorld(c))
		}
	}
	add(singles, 1-pTwo)
	add(pairs, pTwo)
	return p
}

// sample draws a configuration by inverting the cumulative mass.
func (p prior) sample(u float64) config {
	acc := 0.0
	for i, m := range p.mass {
		acc += m
		if u < acc {
			return p.configs[i]
		}
	}
	return p.configs[len(p.configs)-1]
}
