// Package pe is the preference-estimation task (PE-G and PE-F).
package pe
