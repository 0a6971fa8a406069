//go:build !race

package lsptest

const raceEnabled = false
