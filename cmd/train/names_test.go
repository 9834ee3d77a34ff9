package main

import (
	"arew/rl"
	"arew/rl/experiment"
)

// The run folder's names, as the tests here spell them.
const (
	configFile     = experiment.ConfigFile
	sftFile        = experiment.SFTFile
	metricsFile    = experiment.MetricsFile
	evalFile       = experiment.EvalFile
	samplesFile    = experiment.SamplesFile
	reportFile     = experiment.ReportFile
	ckptDir        = experiment.CheckpointDir
	basePolicyFile = experiment.BasePolicyFile
	policyFile     = experiment.PolicyFile
)

type (
	evalRecord = experiment.EvalRecord
	num        = rl.Num
)
