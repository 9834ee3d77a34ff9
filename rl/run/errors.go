package run

import (
	"errors"
	"fmt"
)

// ErrInterrupted: the context ended (Ctrl-C, SIGTERM) and the job stopped
// between two steps: a run wrote its checkpoint set and report; a study
// wrote what its finished runs gave (summary, report, plots) and the
// checkpoint set of the run it cut short; an ACT sweep wrote what its
// finished runs gave, and keeps none of the run it cut short.
var ErrInterrupted = errors.New("interrupted")

// InputError is bad input found before a run or study folder is touched:
// an invalid config, an unknown task or demonstrator, a checkpoint that
// does not load or fit, a job that would not fit in memory, a folder that
// cannot be made or resumed. Commands exit with status 2 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// InputErr wraps err as an InputError.
func InputErr(err error) error { return &InputError{err} }

// InputErrorf is an InputError with a formatted message.
func InputErrorf(format string, args ...any) error { return &InputError{fmt.Errorf(format, args...)} }
