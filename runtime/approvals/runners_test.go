package approvals

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A program that runs other programs or code is offered only the exact
// command: a "*" rule for it would allow anything ("sh -c …", "git -c
// alias.x=!cmd x", "timeout 5 rm -rf ~").
func TestSuggestOffersOnlyTheExactCommandForRunners(t *testing.T) {
	cases := []struct {
		command, want string
	}{
		{"sh -c 'echo hi'", ""}, // the exact rule cannot hold the quoted word
		{"sh build.sh", "shell:sh build.sh"},
		{"bash -x build.sh", "shell:bash -x build.sh"},
		{"/bin/bash build.sh", "shell:/bin/bash build.sh"},
		{"git --version", "shell:git --version"},
		{"git status", "shell:git status"},
		{"git log -n 3", "shell:git log -n 3"},
		{"python3 -V", "shell:python3 -V"},
		{"python3.11 script.py", "shell:python3.11 script.py"},
		{"/usr/bin/python3 -m pytest", "shell:/usr/bin/python3 -m pytest"},
		{"xargs -n1 echo", "shell:xargs -n1 echo"},
		{"timeout 5 ls", "shell:timeout 5 ls"},
		{"env ls", "shell:env ls"},
		{"/usr/bin/env python3 x.py", "shell:/usr/bin/env python3 x.py"},
		{"nice -n 5 make", "shell:nice -n 5 make"},
		{"sudo ls", "shell:sudo ls"},
		{"find . -name x", "shell:find . -name x"},
		{"awk -f prog.awk", "shell:awk -f prog.awk"},
		{"gawk -f prog.awk", "shell:gawk -f prog.awk"},
		{"sed -n 1p a.txt", "shell:sed -n 1p a.txt"},
		{"make test", "shell:make test"},
		{"node app.js", "shell:node app.js"},
		{"npx jest", "shell:npx jest"},
		{"npm test", "shell:npm test"},
		{"go run ./cmd/x", "shell:go run ./cmd/x"},
		{"ruby -v", "shell:ruby -v"},
		{"perl -v", "shell:perl -v"},
		{"busybox sh", "shell:busybox sh"},
		// Not runners: the program and its subcommand, as before.
		{"ls -la", "shell:ls *"},
		{"cat README.md", "shell:cat *"},
		{"grep -rn foo .", "shell:grep *"},
	}
	for _, tc := range cases {
		got := Suggest(Call{Command: tc.command})
		if got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.command, got, tc.want)
		}
		if got == "" {
			continue
		}
		r, err := Parse(got)
		if err != nil || !r.Matches(Call{Command: tc.command}) {
			t.Errorf("suggestion %q does not allow %q (%v)", got, tc.command, err)
		}
	}
}

func TestRunnerNamesMatchPathsAndVersions(t *testing.T) {
	for _, name := range []string{"sh", "/bin/sh", "/usr/bin/env", "python", "python3", "python3.11", "/usr/local/bin/python3.12", "pypy3", "node", "nodejs", "perl5.36", "ruby3.2", "lua5.4", "php8.1", "pip3", "gawk", "busybox", "git", "./git", "sqlite3", "gh", "g++-12", "clang++", "crontab", "pytest"} {
		if !IsRunner(name) {
			t.Errorf("IsRunner(%q) = false", name)
		}
	}
	for _, name := range []string{"ls", "cat", "grep", "./build.sh", "gitk2", "shellcheck", "envsubst", "make-all", "wc"} {
		if IsRunner(name) {
			t.Errorf("IsRunner(%q) = true", name)
		}
	}
}

// A rule the user wrote for a runner is the user's choice and still applies.
func TestUserRulesForRunnersStillApply(t *testing.T) {
	r, err := Parse("shell:git *")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Matches(Call{Command: "git --version"}) {
		t.Error("shell:git * no longer allows git --version")
	}
}

// The protocol page lists exactly the Runners table.
func TestProtocolListsTheRunners(t *testing.T) {
	listed := listedInProtocol(t, "runners: ", " A rule the user writes")
	if !slices.Equal(listed, Runners) {
		t.Errorf("docs/protocol.md lists runners\n%q\nthe table holds\n%q", listed, Runners)
	}
}

// Shell builtins that run their arguments as code, and programs with an
// option or a config file that runs a program, were offered "*" rules:
// "shell:trap *" allows "trap 'rm -rf ~' EXIT", "shell:let *" allows
// "let 'a[$(cmd)]=1'" under bash, "shell:scp *" allows "scp -S prog …",
// "shell:kubectl get *" allows a repository's kubeconfig whose exec
// plugin runs any program.
func TestSuggestOffersOnlyTheExactCommandForBuiltinsAndProgramsThatRunArguments(t *testing.T) {
	commands := []string{
		". ./env.sh", "trap -p", "coproc ls", "let x=1", "declare -p", "typeset -p", "printf %s x",
		"test -f go.mod", "read x", "mapfile x", "readarray x", "fc -l", "enable -a", "r ls",
		"scp a b", "sftp host", "nc -l 8080", "ncat -l 8080", "netcat -l 8080", "socat - TCP:h:1",
		"wget https://example.com", "ssh-agent ls", "dbus-run-session ls", "R --version",
		"toybox ls", "bwrap ls", "firejail ls", "fakeroot ls", "proot ls", "perf stat ls", "lldb ls",
		"ccache cc", "distcc cc", "rustc x.rs", "proxychains4 ls", "torsocks ls", "gtimeout 5 ls", "gxargs ls",
		"ghc x.hs", "ghci", "runhaskell x.hs", "stack build", "cabal build", "scala x", "sbt test",
		"kotlin x", "racket x", "guile x", "sbcl x", "ocaml x", "zig build", "just test", "meson setup",
		"scons all", "ant build", "mix test", "iex x", "dc x", "m4 x", "ed x", "ex x", "view x", "vimdiff a b",
		"gvim x", "entr ls", "watchexec ls", "nodemon x", "tsx x", "ts-node x", "jest x", "vitest run",
		"mocha x", "apt-get install x", "apt list", "dpkg -i x", "rpm -q x", "brew list", "kubectl get pods",
		"helm list", "svn diff", "cpio -i", "rlwrap ls", "sshpass ls", "xdg-open x", "open x",
		"pandoc x.md", "latex x", "pdflatex x", "xelatex x", "lualatex x", "latexmk x", "tex x",
		"gnuplot x", "octave x", "convert a b", "magick a b", "mogrify x", "gs x", "groff x",
		"xterm -e ls", "code x", "mongosh x", "wine x",
	}
	for _, command := range commands {
		got := Suggest(Call{Command: command})
		if want := "shell:" + command; got != want {
			t.Errorf("Suggest(%q) = %q, want %q", command, got, want)
		}
	}
}

// listedInProtocol is the `quoted` names docs/protocol.md lists between
// from and to.
func listedInProtocol(t *testing.T, from, to string) []string {
	t.Helper()
	data, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(data)), " ")
	start := strings.Index(text, from)
	end := strings.Index(text[max(start, 0):], to) + max(start, 0)
	if start < 0 || end < start {
		t.Fatalf("docs/protocol.md has no list between %q and %q", from, to)
	}
	var listed []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(text[start:end], -1) {
		listed = append(listed, m[1])
	}
	return listed
}

// A runner under the name a distribution installs it by (Debian's
// vim.basic and vim.tiny, a cross compiler's triplet, a debug build) was
// offered a "*" rule: "shell:vim.basic *" allows "vim.basic -c ':!cmd'".
func TestRunnerNamesMatchDistributionNames(t *testing.T) {
	for _, name := range []string{"vim.basic", "vim.tiny", "/usr/bin/vim.nox", "nvim.appimage", "busybox.static",
		"x86_64-linux-gnu-gcc", "aarch64-linux-gnu-g++-12", "/usr/bin/x86_64-linux-gnu-gcc-13", "python3.11-dbg",
		"python3-dbg", "docker-compose"} {
		if !IsRunner(name) {
			t.Errorf("IsRunner(%q) = false", name)
		}
	}
}

// A program that writes whatever file its arguments name was offered a
// "*" rule, and so was a way to rewrite what later runs: with "shell:curl
// *", "curl -o .git/config https://…" sets core.fsmonitor, which the next
// "git status" (an exact rule) runs; "cp x ~/.bashrc", "ln -s ../../x
// .git/hooks/pre-commit" likewise.
func TestSuggestOffersOnlyTheExactCommandForProgramsThatWriteAnyFile(t *testing.T) {
	for _, command := range []string{
		"curl https://example.com", "cp a b", "mv a b", "ln -s a b", "install a b", "dd if=a of=b", "tee x",
		"patch -p1", "unzip x.zip", "7z x a.7z",
	} {
		if got, want := Suggest(Call{Command: command}), "shell:"+command; got != want {
			t.Errorf("Suggest(%q) = %q, want %q", command, got, want)
		}
	}
}

// Debian's alternatives name a runner by its role ("editor" is vim,
// "x-terminal-emulator -e cmd" runs cmd), and perl's rename and exiftool
// evaluate Perl given in their arguments ("rename 's/x/`cmd`/e' f").
func TestRunnerNamesMatchAlternativesAndPerlTools(t *testing.T) {
	for _, command := range []string{"editor x", "sensible-editor x", "pager x", "sensible-pager x",
		"x-terminal-emulator x", "x-www-browser x", "www-browser x", "sensible-browser x", "rename x y",
		"prename x y", "file-rename x y", "perl-rename x y", "exiftool x"} {
		if got, want := Suggest(Call{Command: command}), "shell:"+command; got != want {
			t.Errorf("Suggest(%q) = %q, want %q", command, got, want)
		}
	}
}

// A program the workspace holds ("./gradlew", "bin/lint", "./manage.py")
// is the repository's code, often a runner's wrapper: "shell:./gradlew *"
// allows "./gradlew -I init.gradle", "shell:./manage.py *" allows
// "./manage.py shell -c …", and a repository's "./lint" may be a symlink
// to /bin/sh ("./lint -c …"). It is offered only the exact command.
func TestSuggestOffersOnlyTheExactCommandForTheWorkspacesPrograms(t *testing.T) {
	for _, command := range []string{"./gradlew build", "./manage.py test", "bin/lint --fix", "./lint --check",
		"scripts/ci/run.sh", "../tools/x"} {
		if got, want := Suggest(Call{Command: command}), "shell:"+command; got != want {
			t.Errorf("Suggest(%q) = %q, want %q", command, got, want)
		}
	}
	if got := Suggest(Call{Command: "/usr/bin/ls -la"}); got != "shell:/usr/bin/ls *" {
		t.Errorf("Suggest(/usr/bin/ls -la) = %q, want shell:/usr/bin/ls *", got)
	}
}

// Programs that run a command in a container, a VM, another host or
// another architecture ("flatpak run --command=sh …", "vagrant ssh -c …",
// "lxc exec c -- …", "arch -x86_64 sh", "xcrun sh") were offered "*" rules.
func TestSuggestOffersOnlyTheExactCommandForProgramsThatRunCommandsElsewhere(t *testing.T) {
	for _, command := range []string{"flatpak run org.x", "snap run x", "sudoedit x", "mosh host", "oc get pods",
		"vagrant ssh", "lxc list", "incus list", "multipass list", "toolbox run ls", "distrobox enter x",
		"xcrun clang", "arch -x86_64 ls", "caffeinate ls", "sandbox-exec ls", "launchctl list"} {
		if got, want := Suggest(Call{Command: command}), "shell:"+command; got != want {
			t.Errorf("Suggest(%q) = %q, want %q", command, got, want)
		}
	}
}

// Search and text tools with an option that runs a program ("rg --pre sh
// x", "fd -x cmd", "split --filter=cmd", "bat --pager=cmd",
// "aria2c --on-download-complete=cmd") or that write any file
// ("xxd -r x /root/.bashrc", "iconv -o …", "aws s3 cp … ~/.bashrc",
// "ffmpeg … -f data out") were offered "*" rules.
func TestSuggestOffersOnlyTheExactCommandForSearchAndTransferTools(t *testing.T) {
	for _, command := range []string{"rg foo", "fd foo", "fdfind foo", "ack foo", "bat x", "fzf -f x", "split x",
		"xxd x", "iconv x", "openssl version", "gpg -k", "ffmpeg -i a b", "bsdtar -t", "pax -r", "rclone ls x",
		"aws s3 ls", "gsutil ls", "gcloud info", "az version", "aria2c x", "http x", "https x", "xh x"} {
		if got, want := Suggest(Call{Command: command}), "shell:"+command; got != want {
			t.Errorf("Suggest(%q) = %q, want %q", command, got, want)
		}
	}
}
