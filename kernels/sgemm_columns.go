package kernels

// The column split: Sgemm's schedule for products of more than one K
// panel (k > KC) on more than one goroutine.
//
// The row split (sgemmJob.work) shares each packed B panel among the
// goroutines, so every K panel is two phases, "pack" then "compute", and
// each phase starts only when the one before it has ended on every
// goroutine. A deep product (the weight gradients, whose k is the batch's
// B·T rows) has many K panels, each only a few tens of microseconds of
// work per goroutine, and at every boundary the goroutine that finishes
// first waits for the other, and one of them packs a B panel of a few
// slivers while the other waits for that too.
//
// Here each goroutine instead claims a block of columns of C and computes
// it over every K panel alone: it packs the B slivers of its own columns,
// panel by panel, into its own buffer, and runs the blocks of MC rows
// down them, reading A where it is stored as the row split does. No B
// sliver is packed twice and no goroutine ever waits for another until
// the product ends; the cost is that each goroutine reads all of A once
// per K panel where the row split has each read its own rows, which for
// these products (A is X or dY, B·T × d) stays in the shared cache.
//
// Every element of C is still owned by one goroutine and summed in the
// order p = 0..k-1 (its K panels in turn, each added onto the last), by
// the same micro-kernels, so the result is bitwise that of one goroutine
// (TestSgemmDeterministicAcrossWorkers, TestSgemmColumnSplitBitwise).

// sgemmColumnSplit returns the width, in columns (a multiple of NR), of
// the blocks a product of (m, n, k) on workers goroutines is split into
// by columns, or 0 when the row split is used: for one goroutine, one K
// panel, or too few slivers of B to give every goroutine one. Blocks are
// two slivers wide when there are enough of them for two per goroutine
// (the AVX-512 kernel takes slivers in pairs), so a goroutine that starts
// late claims fewer.
func sgemmColumnSplit(m, n, k, workers int) int {
	slivers := ceilDiv(n, sgemmNR)
	switch {
	case workers < 2 || k <= sgemmKC || m < sgemmMR || slivers < workers:
		return 0
	case slivers >= 2*workers:
		return 2 * sgemmNR
	}
	return sgemmNR
}

// workColumns claims column blocks until none is left, and computes each
// over every K panel with its own packed B slivers.
func (j *sgemmJob) workColumns() {
	kcMax := min(sgemmKC, j.k)
	rows := min(sgemmMC, ceilDiv(j.m, sgemmMR)*sgemmMR)
	abufLen := rows * kcMax
	buf := sgemmPoolA.get(abufLen + sgemmMR*sgemmNR + kcMax*j.colsPer)
	abuf, tmp, bp := (*buf)[:abufLen], (*buf)[abufLen:abufLen+sgemmMR*sgemmNR], (*buf)[abufLen+sgemmMR*sgemmNR:]
	for {
		j0 := int(j.next.Add(1)-1) * j.colsPer
		if j0 >= j.n {
			break
		}
		nc := min(j.colsPer, j.n-j0)
		for pc := 0; pc < j.k; pc += sgemmKC {
			ph := sgemmPhase{jc: j0, nc: nc, pc: pc, kc: min(sgemmKC, j.k-pc)}
			sgemmPackB(j.kern, bp, j.transB, j.b, j.ldb, ph.pc, ph.kc, j0, nc)
			for i0 := 0; i0 < j.m; i0 += rows {
				j.block(ph, bp, abuf[:rows*ph.kc], tmp, i0, min(i0+rows, j.m), 0, nc)
			}
		}
	}
	sgemmPoolA.put(buf)
}
