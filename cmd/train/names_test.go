package main

import (
	arewrun "arew/rl/run"
)

// The run folder's names, as the tests here spell them.
const (
	configFile     = arewrun.ConfigFile
	sftFile        = arewrun.SFTFile
	metricsFile    = arewrun.MetricsFile
	evalFile       = arewrun.EvalFile
	samplesFile    = arewrun.SamplesFile
	reportFile     = arewrun.ReportFile
	ckptDir        = arewrun.CheckpointDir
	basePolicyFile = arewrun.BasePolicyFile
	policyFile     = arewrun.PolicyFile
)

type (
	evalRecord = arewrun.EvalRecord
	num        = arewrun.Num
)
