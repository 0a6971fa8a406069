package lsp

import "scv/internal/jsonstr"

// appendJSONString appends s as a JSON string (see jsonstr.Append).
func appendJSONString(dst []byte, s string) []byte { return jsonstr.Append(dst, s) }
