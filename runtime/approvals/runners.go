package approvals

import (
	"path"
	"strings"
)

// Runners are the programs whose arguments can name another program, or
// code, for them to run: "sh -c …", "env rm …", "timeout 5 rm …",
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
	"busybox", "command", "exec", "eval", "source", "builtin",
	// Programs that run the command given in their arguments.
	"env", "xargs", "parallel", "timeout", "nice", "ionice", "nohup", "setsid", "stdbuf", "flock", "watch", "time",
	"chroot", "unshare", "nsenter", "taskset", "chrt", "script", "unbuffer", "expect", "strace", "ltrace", "gdb", "valgrind",
	"sudo", "doas", "su", "runuser", "pkexec", "sg", "systemd-run", "xvfb-run", "ssh", "at", "batch", "crontab",
	"tmux", "screen", "nix", "nix-shell", "direnv", "mise", "asdf", "pyenv", "rbenv",
	// Interpreters and runtimes: their arguments are code or name it.
	"python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "irb", "perl", "php", "lua", "luajit", "tclsh", "wish",
	"rscript", "julia", "java", "jshell", "groovy", "osascript", "dotnet", "swift", "runghc", "elixir", "erl", "ipython",
	"jupyter", "sqlite", "psql", "mysql",
	"awk", "gawk", "mawk", "nawk", "sed",
	// Build tools and package managers: their arguments run scripts, hooks or any
	// program ("make SHELL=…", "npm exec …", "go run …", "cargo --config …").
	"make", "cmake", "ninja", "go", "cargo", "rustup", "npm", "npx", "yarn", "pnpm", "pip", "pipx", "uv", "uvx",
	"poetry", "conda", "gem", "bundle", "rake", "composer", "mvn", "gradle", "bazel", "pytest", "tox", "nox", "ansible",
	"terraform", "gh",
	// Compilers: "-wrapper", "-B" and plugins run programs or load code.
	"cc", "c++", "gcc", "g++", "clang", "clang++",
	// Programs with an option that runs a program: "find -exec", "git -c
	// core.pager=…", "tar --to-command", "rsync -e", "vim -c '!…'".
	"find", "git", "hg", "tar", "rsync", "zip", "sort", "man", "less", "vi", "vim", "nvim", "emacs", "docker", "podman",
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
// "perl5.36", "pip3", "sqlite3" is sqlite).
func programName(word string) string {
	name := strings.ToLower(path.Base(word))
	if runnerSet[name] {
		return name
	}
	return strings.TrimRight(name, "0123456789.-")
}

// AllowsAnyCommand reports whether r is a "*" rule for one of Runners
// ("shell:sh *", "shell:git *"): a rule that allows any command at all,
// which scv never offers in an approval prompt.
func (r Rule) AllowsAnyCommand() bool {
	return r.kind == KindShell && r.open && IsRunner(r.prefix[0])
}
