// Package tensorboard writes TensorBoard event files, so a run opens in
// TensorBoard (or in wandb's TensorBoard sync) the way a PyTorch, TRL or verl
// run does.
//
// # The file format
//
// An event file, events.out.tfevents.<unix seconds>.<host>, is a sequence of
// TFRecords, each one serialised Event protocol buffer:
//
//	uint64  length           little endian
//	uint32  masked CRC of the 8 length bytes
//	byte    data[length]     the Event
//	uint32  masked CRC of data
//
// with CRC-32C (Castagnoli) masked as ((c >> 15) | (c << 17)) + 0xa282ead8.
// The first Event carries file_version "brain.Event:2"; each later one a
// wall time, a step and a Summary of (tag, simple_value) pairs. The fields
// used, from TensorBoard's event.proto and summary.proto:
//
//	Event   { double wall_time = 1; int64 step = 2;
//	          oneof what { string file_version = 3; Summary summary = 5; } }
//	Summary { repeated Value value = 1; }
//	Value   { string tag = 1; oneof value { float simple_value = 2; } }
//
// The messages are encoded with google.golang.org/protobuf's wire package
// (protowire), field by field; the test reads the files back with its own
// TFRecord reader and decodes them with that library's dynamic messages
// built from a descriptor of the same .proto fields
// (TestEventsReadBackIndependently), so the writer and the reader share no
// code.
//
// A scalar that is not finite (NaN: not applicable) is left out of its
// event. Writes are flushed after every event, so TensorBoard can follow a
// run that is still going.
package tensorboard
