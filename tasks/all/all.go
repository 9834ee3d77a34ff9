// Package all links every task package into a binary, so that their
// settings are registered with tasks.New. Each task adds one file here with a
// blank import of its package.
package all
