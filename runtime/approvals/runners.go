package approvals

import (
	"path"
	"strings"
)

// Runners are the programs whose arguments can name another program, or
// code, for them to run (or a file to write, which can be what later
// runs): "sh -c …", "env rm …", "timeout 5 rm …",
// "git -c alias.x=!cmd x", "go test -exec=…", "find -exec …", "awk
// 'BEGIN{system(…)}'", "tar --to-command=…". A rule "shell:git *" would
// therefore allow any command at all, so an approval prompt never offers a
// "*" rule for them, only the exact command (see Suggest). A rule the user
// writes by hand is still honoured as written.
//
// The list is closed: a program is named by the last element of its path
// with a version suffix dropped ("/usr/bin/python3.11" is python). It is
// documented in docs/protocol.md ("Standing approvals"), which a test
// holds to this table.
var Runners = []string{
	// Shells, and a shell's ways to run a word as a command.
	"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "elvish", "nu", "xonsh", "pwsh",
	"busybox", "toybox", "command", "exec", "eval", "source", ".", "builtin", "trap", "coproc", "fc", "enable",
	"mapfile", "readarray",
	// Builtins that evaluate an array subscript as arithmetic, which runs
	// "$(…)" under bash (sh on many systems): "let 'a[$(cmd)]=1'",
	// "printf -v 'a[$(cmd)]' x", "test -v 'a[$(cmd)]'".
	"let", "declare", "typeset", "printf", "test", "read",
	// Programs that run the command given in their arguments.
	"env", "xargs", "parallel", "timeout", "nice", "ionice", "nohup", "setsid", "stdbuf", "flock", "watch", "time",
	"chroot", "unshare", "nsenter", "taskset", "chrt", "script", "unbuffer", "expect", "strace", "ltrace", "gdb", "valgrind",
	"sudo", "doas", "su", "runuser", "pkexec", "sg", "systemd-run", "xvfb-run", "ssh", "at", "batch", "crontab",
	"tmux", "screen", "nix", "nix-shell", "direnv", "mise", "asdf", "pyenv", "rbenv",
	"ssh-agent", "dbus-run-session", "bwrap", "firejail", "fakeroot", "proot", "perf", "lldb", "ccache", "distcc",
	"proxychains", "torsocks", "rlwrap", "sshpass", "entr", "watchexec", "nodemon", "xterm", "wine",
	// Programs that run a command in a container, a VM, another host or
	// another architecture ("vagrant ssh -c …", "lxc exec c -- …", "arch
	// -x86_64 sh").
	"flatpak", "snap", "sudoedit", "mosh", "oc", "vagrant", "lxc", "incus", "multipass", "toolbox", "distrobox",
	"xcrun", "arch", "caffeinate", "sandbox-exec", "launchctl",
	// GNU tools under their g-prefixed names (macOS).
	"gtimeout", "gxargs", "genv", "gfind", "gsed", "gnice", "gstdbuf",
	// Interpreters and runtimes: their arguments are code or name it ("r"
	// is R, and zsh's r, which runs a history line again).
	"python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "irb", "perl", "php", "lua", "luajit", "tclsh", "wish",
	"rscript", "julia", "java", "jshell", "groovy", "osascript", "dotnet", "swift", "runghc", "elixir", "erl", "ipython",
	"jupyter", "sqlite", "psql", "mysql", "mongosh", "r", "ghc", "ghci", "runhaskell", "scala", "kotlin", "racket",
	"guile", "sbcl", "ocaml", "tsx", "ts-node", "dc", "m4", "gnuplot", "octave",
	"awk", "gawk", "mawk", "nawk", "sed",
	// Build tools and package managers: their arguments run scripts, hooks or any
	// program ("make SHELL=…", "npm exec …", "go run …", "cargo --config …").
	"make", "cmake", "ninja", "go", "cargo", "rustup", "npm", "npx", "yarn", "pnpm", "pip", "pipx", "uv", "uvx",
	"poetry", "conda", "gem", "bundle", "rake", "composer", "mvn", "gradle", "bazel", "pytest", "tox", "nox", "ansible",
	"terraform", "gh", "stack", "cabal", "sbt", "zig", "just", "meson", "scons", "ant", "mix", "iex", "jest", "vitest",
	"mocha", "apt", "apt-get", "dpkg", "rpm", "brew", "kubectl", "helm", "rustc",
	// Compilers: "-wrapper", "-B" and plugins run programs or load code.
	"cc", "c++", "gcc", "g++", "clang", "clang++",
	// Programs with an option, or a config file a repository can hold, that
	// runs a program: "find -exec", "git -c core.pager=…", "tar
	// --to-command", "rsync -e", "vim -c '!…'", "scp -S prog", "nc -e",
	// "socat EXEC:…", "wget --use-askpass=…", "kubectl --kubeconfig=f" (an
	// exec credential plugin), "pdflatex --shell-escape", "convert '|cmd'",
	// "xdg-open x.desktop", "code --install-extension x.vsix".
	"find", "git", "hg", "svn", "tar", "cpio", "rsync", "scp", "sftp", "nc", "ncat", "netcat", "socat", "wget", "zip",
	"sort", "man", "less", "vi", "vim", "nvim", "gvim", "view", "vimdiff", "ex", "ed", "emacs", "docker",
	"docker-compose", "podman", "pandoc", "tex", "latex", "pdflatex", "xelatex", "lualatex", "latexmk", "groff", "gs",
	"convert", "magick", "mogrify", "xdg-open", "open", "code",
	// Programs that write whatever file their arguments name, and so what
	// later runs: "curl -o .git/config …" (core.fsmonitor runs on the next
	// "git status"), "cp x ~/.bashrc", "ln -s ../../x .git/hooks/pre-commit".
	"curl", "cp", "mv", "ln", "install", "dd", "tee", "patch", "unzip", "7z", "xxd", "iconv", "openssl", "gpg", "ffmpeg",
	"bsdtar", "pax", "rclone", "aws", "gsutil", "gcloud", "az", "http", "https", "xh",
	// Search and text tools with an option that runs a program: "rg --pre
	// sh x" runs every file it searches, "fd -x", "split --filter=…", "bat
	// --pager=…", "aria2c --on-download-complete=…".
	"rg", "fd", "fdfind", "ack", "bat", "fzf", "split", "aria2c",
	// Debian's alternatives, named for a role a runner plays ("editor" is
	// vim, "x-terminal-emulator -e cmd"), and tools that evaluate Perl from
	// their arguments ("rename 's/x/`cmd`/e' f", "exiftool -if …").
	"editor", "sensible-editor", "pager", "sensible-pager", "x-terminal-emulator", "x-www-browser", "www-browser",
	"sensible-browser", "rename", "prename", "file-rename", "perl-rename", "exiftool",
}

// runnerSet is Runners as a set.
var runnerSet = func() map[string]bool {
	set := make(map[string]bool, len(Runners))
	for _, name := range Runners {
		set[name] = true
	}
	return set
}()

// IsRunner reports whether a command's first word names one of Runners.
func IsRunner(program string) bool {
	return runnerSet[programName(program)]
}

// programName is a command's first word as Runners names it: without its
// directory, lower case, without a version suffix ("python3.11",
// "perl5.36", "pip3", "sqlite3" is sqlite), or under the name a
// distribution installs it by (see nameForms).
func programName(word string) string {
	name := strings.ToLower(path.Base(word))
	for _, form := range nameForms(name) {
		if runnerSet[form] {
			return form
		}
	}
	return versionless(name)
}

// buildSuffixes mark a variant build of a program ("python3-dbg",
// "busybox-static").
var buildSuffixes = []string{"-dbg", "-debug", "-static"}

// nameForms are the names a program file may be the runner of: the name
// itself, without its version, before its first dot (Debian's
// "vim.basic", "vim.tiny"; "nvim.appimage"), without a build suffix, and
// a cross toolchain's last part ("x86_64-linux-gnu-gcc-13" is gcc).
func nameForms(name string) []string {
	bare := versionless(name)
	forms := []string{name, bare}
	if i := strings.IndexByte(name, '.'); i > 0 {
		forms = append(forms, versionless(name[:i]))
	}
	for _, suffix := range buildSuffixes {
		if s, ok := strings.CutSuffix(bare, suffix); ok {
			forms = append(forms, versionless(s))
		}
	}
	if parts := strings.Split(bare, "-"); len(parts) >= 3 {
		forms = append(forms, versionless(parts[len(parts)-1]))
	}
	return forms
}

// versionless drops a version suffix: "python3.11" is python, "g++-12" g++.
func versionless(name string) string { return strings.TrimRight(name, "0123456789.-") }

// workspaceProgram reports whether a command's first word is a relative
// path ("./gradlew", "bin/lint"): a program the workspace holds, the
// repository's code (often a runner's wrapper, or a symlink to one).
func workspaceProgram(word string) bool {
	return strings.Contains(word, "/") && !strings.HasPrefix(word, "/")
}

// exactOnly reports whether a command's first word names a program for
// which only the exact command may be offered: one of Runners, or one
// the workspace holds.
func exactOnly(program string) bool {
	return IsRunner(program) || workspaceProgram(program)
}

// AllowsAnyCommand reports whether r is a "*" rule for one of Runners
// ("shell:sh *", "shell:git *") or a program the workspace holds
// ("shell:./gradlew *"): a rule that allows any command at all, which scv
// never offers in an approval prompt.
func (r Rule) AllowsAnyCommand() bool {
	return r.kind == KindShell && r.open && exactOnly(r.prefix[0])
}
