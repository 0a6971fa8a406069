package prompt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	// SkillFile is the file a skill directory holds.
	SkillFile = "SKILL.md"
	// HomeSkillsDir is the user's skills directory, relative to the home.
	HomeSkillsDir = "skills"
	// MaxSkills bounds how many skills are listed, project and user together.
	MaxSkills = 64
	// MaxSkillNameBytes bounds a skill's (directory) name.
	MaxSkillNameBytes = 64
	// MaxDescriptionBytes bounds a skill's description in the listing.
	MaxDescriptionBytes = 300
	// SkillHeaderBytes is how much of a SKILL.md is read to find its
	// description.
	SkillHeaderBytes = 16 * 1024
	// noDescription stands in when a SKILL.md says nothing.
	noDescription = "(no description)"
)

// ProjectSkillsDir is the project's skills directory, relative to the
// workspace (slash-separated).
const ProjectSkillsDir = ".scv/skills"

// Where a skill was found.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Skill is one discovered skill.
type Skill struct {
	Name        string // its directory's name
	Description string // one line, at most MaxDescriptionBytes
	Scope       string // ScopeProject or ScopeUser
	// Root is the skills directory it was found in and Path its SKILL.md,
	// both with symlinks resolved; Path lies inside Root, and read_skill
	// reads it only through Root.
	Root string
	Path string
}

// discoverSkills lists the project's skills, then the user's ones whose
// names the project does not use, sorted by name.
func discoverSkills(ws, home string) ([]Skill, []string) {
	type source struct {
		dir, scope, mustBeIn string
	}
	sources := []source{{filepath.Join(ws, filepath.FromSlash(ProjectSkillsDir)), ScopeProject, ws}}
	if home != "" {
		sources = append(sources, source{filepath.Join(home, HomeSkillsDir), ScopeUser, ""})
	}
	var (
		skills []Skill
		notes  []string
		seen   = make(map[string]bool)
	)
	for _, src := range sources {
		root, err := filepath.EvalSymlinks(src.dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s skills in %s skipped: %v", src.scope, src.dir, errorText(err)))
			continue
		}
		if src.mustBeIn != "" && !inside(root, src.mustBeIn) {
			notes = append(notes, fmt.Sprintf("%s skills skipped: %s resolves to %s, outside the workspace", src.scope, src.dir, root))
			continue
		}
		entries, err := os.ReadDir(root)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s skills in %s skipped: %v", src.scope, src.dir, errorText(err)))
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || seen[name] {
				continue
			}
			// Only directories (or symlinks to them) can be skills; loose
			// files beside them are not worth a note.
			if info, err := os.Stat(filepath.Join(root, name)); err != nil || !info.IsDir() {
				continue
			}
			skill, note, ok := loadSkill(root, name, src.scope)
			if note != "" {
				notes = append(notes, note)
			}
			if !ok {
				continue
			}
			if len(skills) == MaxSkills {
				notes = append(notes, fmt.Sprintf("more than %d skills: %s skill %q and any later ones are not listed", MaxSkills, src.scope, name))
				sortSkills(skills)
				return skills, notes
			}
			seen[name] = true
			skills = append(skills, skill)
		}
	}
	sortSkills(skills)
	return skills, notes
}

func sortSkills(skills []Skill) {
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
}

// loadSkill reads root/name/SKILL.md's description. ok is false when the
// entry is not a usable skill; note says why if the user should know.
func loadSkill(root, name, scope string) (skill Skill, note string, ok bool) {
	file := filepath.Join(root, name, SkillFile)
	resolved, err := filepath.EvalSymlinks(file)
	if errors.Is(err, fs.ErrNotExist) {
		return Skill{}, "", false // a directory without SKILL.md is no skill
	}
	if err != nil {
		return Skill{}, fmt.Sprintf("%s skill %q skipped: %v", scope, name, errorText(err)), false
	}
	if !validSkillName(name) {
		return Skill{}, fmt.Sprintf("%s skill %q skipped: a name must be at most %d letters, digits, '.', '_' or '-'",
			scope, name, MaxSkillNameBytes), false
	}
	if !inside(resolved, root) {
		return Skill{}, fmt.Sprintf("%s skill %q skipped: %s resolves to %s, outside %s", scope, name, file, resolved, root), false
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil {
		return Skill{}, fmt.Sprintf("%s skill %q skipped: %v", scope, name, err), false
	}
	header, _, err := readInRoot(root, rel, SkillHeaderBytes)
	if err != nil {
		return Skill{}, fmt.Sprintf("%s skill %q skipped: %s: %v", scope, name, file, errorText(err)), false
	}
	return Skill{Name: name, Description: describe(header), Scope: scope, Root: root, Path: resolved}, "", true
}

// validSkillName keeps names that are safe to print in the prompt and to
// pass around as a tool argument.
func validSkillName(name string) bool {
	if name == "" || len(name) > MaxSkillNameBytes {
		return false
	}
	for _, r := range name {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}

// skillsSection lists the skills for the model.
func skillsSection(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n# Skills\n\n")
	fmt.Fprintf(&b, "Skills are instructions for particular kinds of task, kept out of this prompt until needed. "+
		"When a task matches one below, call the %s tool with the skill's name to load it, then follow it.\n\n", ReadSkillToolName)
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
	}
	return b.String()
}
