package schema_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"scv/lsp"
	"scv/lsp/schema"
)

const root = "../.."

func wireNames() []string {
	names := append(slices.Clone(schema.Methods), schema.Notifications...)
	slices.Sort(names)
	return names
}

func TestServerAdvertisesExactlyTheSchemaMethods(t *testing.T) {
	want := slices.Clone(schema.Methods)
	slices.Sort(want)
	if got := lsp.AdvertisedMethods(); !slices.Equal(got, want) {
		t.Fatalf("the server dispatches %v\nthe schema lists %v", got, want)
	}
}

// TestNoMethodNameOutsideTheSchema: every scv method or notification name
// in the Go code (tests aside) comes from this package, so a rename is one
// edit and a misspelt name does not compile.
func TestNoMethodNameOutsideTheSchema(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "editors", "schema":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, lit := range scvLiterals(t, path) {
			t.Errorf("%s: the string literal %s names the scv namespace; use a scv/lsp/schema constant", lit.pos, lit.text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type literal struct{ pos, text string }

// scvLiterals returns the string literals of a Go file that start with
// "scv/", except import paths and the paths of packages of this module.
func scvLiterals(t *testing.T, path string) []literal {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[*ast.BasicLit]bool{}
	for _, imp := range f.Imports {
		imports[imp.Path] = true
	}
	var out []literal
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || imports[lit] {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil || !strings.HasPrefix(s, schema.Namespace) {
			return true
		}
		if info, err := os.Stat(filepath.Join(root, strings.TrimPrefix(s, "scv/"))); err == nil && info.IsDir() {
			return true // a package of this module (go build scv/cmd/scv)
		}
		out = append(out, literal{fset.Position(lit.Pos()).String(), lit.Value})
		return true
	})
	return out
}

// TestEditorSchemasNameWhatTheServerHandles: the editors keep their own
// copy of the names; each must hold every name the server advertises and
// no other.
func TestEditorSchemasNameWhatTheServerHandles(t *testing.T) {
	name := regexp.MustCompile(`["']scv/[a-z]+/[a-z]+["']`)
	for _, file := range []string{
		"editors/vscode/src/client/protocol.ts",
		"editors/nvim/lua/scv/protocol.lua",
	} {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range name.FindAllString(string(data), -1) {
			got = append(got, m[1:len(m)-1])
		}
		slices.Sort(got)
		got = slices.Compact(got)
		want := wireNames()
		for _, n := range got {
			if !slices.Contains(want, n) {
				t.Errorf("%s names %s, which the server neither handles nor sends", file, n)
			}
		}
		for _, n := range want {
			if !slices.Contains(got, n) {
				t.Errorf("%s lacks %s", file, n)
			}
		}
	}
}

// TestVSCodeApprovalCarriesEveryField: the VS Code client's typed copy of
// an approval request names every member the server sends, so a new one
// (such as notice) cannot go unseen by its approval UIs.
func TestVSCodeApprovalCarriesEveryField(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "editors/vscode/src/client/protocol.ts"))
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)export interface ApprovalRequested extends EventBase \{(.*?)\n\}`).FindSubmatch(data)
	if body == nil {
		t.Fatal("protocol.ts has no ApprovalRequested interface")
	}
	fields := reflect.TypeFor[schema.Approval]()
	for i := range fields.NumField() {
		name, _, _ := strings.Cut(fields.Field(i).Tag.Get("json"), ",")
		if !regexp.MustCompile(`(?m)^\s*` + name + `\??:`).Match(body[1]) {
			t.Errorf("ApprovalRequested in protocol.ts lacks %s", name)
		}
	}
}
