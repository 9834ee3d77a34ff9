package pe_test

import (
	"fmt"
	"math/rand/v2"

	"arew/tasks"
	"arew/tasks/pe"
)

// An episode of pe-g-s3 played by the strong policy, as the token stream a
// model sees (agent turns end with <eot>), then its steps.
func Example_episode() {
	task, err := tasks.New("pe-g-s3", nil)
	if err != nil {
		panic(err)
	}
	pol, err := task.Scripted(tasks.PolicySpec{Kind: "strong"})
	if err != nil {
		panic(err)
	}
	ep, err := task.NewEpisode(tasks.Test, 3)
	if err != nil {
		panic(err)
	}
	v := task.Vocab()
	fmt.Println(v.Decode(ep.Prompt()))
	rng := rand.New(rand.NewPCG(1, 1))
	for !ep.Done() {
		a, err := pol.Act(ep, rng)
		if err != nil {
			panic(err)
		}
		obs, st, err := ep.Step(a)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-22s | %-12s | %v z=%+d\n", v.Decode(append(a, tasks.EOT)), v.Decode(obs), st.Kind, st.Z)
	}
	m := ep.Measures()
	fmt.Printf("w* = %.2f\n", ep.(*pe.Episode).Truth())
	fmt.Printf("success %v, evidence (final cos) %.3f, AS proxy %.2f, BT proxy %.3f\n", m.Success, m.Evidence, m.ASProxy, m.BTProxy)
	// Output:
	// <bos> m0 4 4 4 4 4 4 m1 1 0 1 1 0 1 m2 4 3 3 4 4 3 m3 2 3 4 3 3 2 m4 2 3 1 3 3 3 m5 4 3 4 3 3 4 m6 3 2 3 2 1 2 m7 1 2 2 1 2 1 m8 0 0 0 0 0 0 m9 2 2 2 1 1 1 m10 2 1 1 2 1 2 m11 1 0 0 1 1 0 ask
	// a1 a3 a4 m6 m7 <eot>   | yes guess    | AS z=+1
	// 2 2 2 3 0 2 <eot>      | ask          | BT z=+1
	// a1 a2 a3 m7 m10 <eot>  | equal guess  | AS z=+1
	// 1 2 2 4 0 1 <eot>      | ask          | BT z=+1
	// a0 a2 a3 m4 m6 <eot>   | yes guess    | AS z=+1
	// 0 2 0 2 0 1 <eot>      | ask          | BT z=+1
	// a0 a2 a4 m1 m11 <eot>  | no guess     | AS z=+1
	// 0 4 0 4 1 1 <eot>      | ask          | BT z=+1
	// a0 a2 a5 m4 m6 <eot>   | equal answer | AS z=+1
	// 0 4 0 3 1 0 <eot>      |              | BT z=-1
	// w* = [0.10 0.95 0.03 1.00 0.44 0.09]
	// success true, evidence (final cos) 0.977, AS proxy 1.00, BT proxy 0.049
}
