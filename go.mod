module scv

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/google/uuid v1.6.0
	github.com/sashabaranov/go-openai v1.43.0
	go.lsp.dev/jsonrpc2 v1.0.1
	go.lsp.dev/protocol v1.0.1
	golang.org/x/sys v0.50.0
)

require (
	github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	go.lsp.dev/uri v1.0.1 // indirect
)
