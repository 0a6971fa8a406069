package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	long := strings.Repeat("word ", 200)
	cases := []struct{ name, content, want string }{
		{"plain front matter", "---\nname: x\ndescription: Review Go code for races\n---\n# Body\n", "Review Go code for races"},
		{"double quoted", "---\ndescription: \"Say \\\"hi\\\": it's \\u00e9\"\n---\n", `Say "hi": it's é`},
		{"single quoted", "---\ndescription: 'It''s: quoted'\n---\n", "It's: quoted"},
		{"quoted over lines", "---\ndescription: \"first\n  second\"\nname: x\n---\n", "first second"},
		{"folded block", "---\ndescription: >-\n  Folded text\n  over lines\nname: x\n---\n", "Folded text over lines"},
		{"plain continued", "---\ndescription: starts here\n  and goes on # comment\n---\n", "starts here and goes on # comment"},
		{"comment stripped", "---\ndescription: value # a comment\n---\n", "value"},
		{"no description key", "---\nname: x\n---\n\n# Deploy the app\n", "Deploy the app"},
		{"empty description", "---\ndescription: \"\"\n---\nFallback line\n", "Fallback line"},
		{"nested key ignored", "---\nmeta:\n  description: nested\n---\nTop line\n", "Top line"},
		{"heading", "\n\n## Write migrations\nbody", "Write migrations"},
		{"setext", "Title line\n=====\n", "Title line"},
		{"crlf and bom", "\uFEFF---\r\ndescription: windows\r\n---\r\n", "windows"},
		{"unclosed front matter", "---\ndescription: never closed\n", "description: never closed"},
		{"nothing", "\n  \n#\n", noDescription},
		{"control characters", "Tab\there\x07bell", "Tab here bell"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := describe(tc.content); got != tc.want {
				t.Fatalf("describe(%q) = %q, want %q", tc.content, got, tc.want)
			}
		})
	}
	got := describe(long)
	if len(got) > MaxDescriptionBytes || !strings.HasSuffix(got, "…") {
		t.Fatalf("long description: %d bytes %q", len(got), got)
	}
}

func skillAt(t *testing.T, dir, name, content string) {
	t.Helper()
	write(t, filepath.Join(dir, name, SkillFile), content)
}

func TestSkillsProjectOverridesHome(t *testing.T) {
	_, ws, home := layout(t)
	project := filepath.Join(ws, ProjectSkillsDir)
	user := filepath.Join(home, HomeSkillsDir)
	skillAt(t, project, "shared", "---\ndescription: project version\n---\n")
	skillAt(t, project, "alpha", "# Alpha skill\n")
	skillAt(t, user, "shared", "---\ndescription: user version\n---\n")
	skillAt(t, user, "zeta", "Zeta does things.\n")
	if err := os.MkdirAll(filepath.Join(user, "no-skill-file"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(user, "loose.md"), "not a skill directory")

	sys := build(t, Options{Workspace: ws, Home: home, SkillsEnabled: true})
	var got []string
	for _, s := range sys.Skills {
		got = append(got, s.Name+"="+s.Scope+":"+s.Description)
	}
	want := []string{"alpha=project:Alpha skill", "shared=project:project version", "zeta=user:Zeta does things."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("skills = %q, want %q", got, want)
	}
	if len(sys.Notes) != 0 {
		t.Fatalf("notes = %q", sys.Notes)
	}
	for _, w := range []string{"# Skills", ReadSkillToolName, "- alpha: Alpha skill\n", "- shared: project version\n", "- zeta: Zeta does things.\n"} {
		if !strings.Contains(sys.Text, w) {
			t.Errorf("text lacks %q:\n%s", w, sys.Text)
		}
	}
	if strings.Contains(sys.Text, "user version") {
		t.Fatalf("shadowed user skill listed:\n%s", sys.Text)
	}

	// Disabled: nothing is listed.
	sys = build(t, Options{Workspace: ws, Home: home, SkillsEnabled: false})
	if len(sys.Skills) != 0 || strings.Contains(sys.Text, "# Skills") {
		t.Fatalf("skills listed while disabled: %v\n%s", sys.Skills, sys.Text)
	}
}

func TestSkillsEscapingTheirRootAreSkipped(t *testing.T) {
	root, ws, home := layout(t)
	project := filepath.Join(ws, ProjectSkillsDir)
	outside := filepath.Join(root, "outside")
	skillAt(t, outside, "evil", "---\ndescription: stolen\n---\n")
	// A skill directory that is a symlink out of the skills root.
	symlink(t, filepath.Join(outside, "evil"), filepath.Join(project, "evil-dir"))
	// A SKILL.md that is a symlink out of the skills root.
	symlink(t, filepath.Join(outside, "evil", SkillFile), filepath.Join(project, "evil-file", SkillFile))
	// A symlink that stays inside the root is fine.
	skillAt(t, project, "real", "Real skill.\n")
	symlink(t, filepath.Join(project, "real"), filepath.Join(project, "alias"))
	// A name unsafe to print is refused.
	skillAt(t, project, "bad name", "x\n")

	sys := build(t, Options{Workspace: ws, Home: home, SkillsEnabled: true})
	var names []string
	for _, s := range sys.Skills {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "alias,real" {
		t.Fatalf("skills = %v", names)
	}
	if strings.Contains(sys.Text, "stolen") {
		t.Fatalf("outside skill listed:\n%s", sys.Text)
	}
	notes := strings.Join(sys.Notes, "\n")
	for _, w := range []string{`"evil-dir" skipped`, `"evil-file" skipped`, `"bad name" skipped`, "outside"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}

func TestProjectSkillsDirOutsideWorkspaceIsSkipped(t *testing.T) {
	root, ws, home := layout(t)
	outside := filepath.Join(root, "elsewhere")
	skillAt(t, outside, "evil", "stolen\n")
	symlink(t, outside, filepath.Join(ws, ProjectSkillsDir))
	// The user's skills directory may live anywhere, symlinks included.
	skillAt(t, filepath.Join(root, "dotfiles"), "mine", "Mine.\n")
	symlink(t, filepath.Join(root, "dotfiles"), filepath.Join(home, HomeSkillsDir))

	sys := build(t, Options{Workspace: ws, Home: home, SkillsEnabled: true})
	if len(sys.Skills) != 1 || sys.Skills[0].Name != "mine" {
		t.Fatalf("skills = %+v", sys.Skills)
	}
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], "outside the workspace") {
		t.Fatalf("notes = %q", sys.Notes)
	}
}

func TestSkillsAreCapped(t *testing.T) {
	_, ws, home := layout(t)
	for i := range MaxSkills + 5 {
		skillAt(t, filepath.Join(home, HomeSkillsDir), fmt.Sprintf("s%03d", i), "x\n")
	}
	sys := build(t, Options{Workspace: ws, Home: home, SkillsEnabled: true})
	if len(sys.Skills) != MaxSkills {
		t.Fatalf("%d skills listed, want %d", len(sys.Skills), MaxSkills)
	}
	if len(sys.Notes) != 1 || !strings.Contains(sys.Notes[0], fmt.Sprint(MaxSkills)) {
		t.Fatalf("notes = %q", sys.Notes)
	}
}
