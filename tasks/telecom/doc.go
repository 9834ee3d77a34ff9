// Package telecom is a toy telecom troubleshooting task (placeholder doc).
package telecom
