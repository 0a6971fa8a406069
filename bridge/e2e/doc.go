// Package e2e holds end-to-end tests of the shared daemon: a real
// `scv daemon` process in a temporary SCV_HOME, real `scv lsp` bridges as
// editor windows, and the fake OpenAI server or the replay provider as the
// model. Everything lives in its _test.go files; this file only names the
// package.
//
// The tests wait on conditions (a notification arrived, a process exited,
// a socket answers) with generous bounds, never on sleeps. The benchmarks
// in bench_test.go measure the figures, each against a baseline
// taken in the same run:
//
//	go test -run '^$' -bench . -benchtime 200x ./bridge/e2e
package e2e
