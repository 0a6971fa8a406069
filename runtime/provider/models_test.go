package provider

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// lister is a ModelLister whose answers a test scripts.
type lister struct {
	key   string
	calls int
	list  func(ctx context.Context) ([]string, error)
}

func (l *lister) ModelsKey() string { return l.key }
func (l *lister) ListModels(ctx context.Context) ([]string, error) {
	l.calls++
	return l.list(ctx)
}

func TestModelCacheKeepsAnAnswerForTheTTLPerBaseURL(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewModelCache(func() time.Time { return now })
	a := &lister{key: "http://a/v1", list: func(context.Context) ([]string, error) { return []string{"m1"}, nil }}
	b := &lister{key: "http://b/v1", list: func(context.Context) ([]string, error) { return []string{"m2"}, nil }}
	for range 3 {
		if ids, err := c.List(context.Background(), a); err != nil || !slices.Equal(ids, []string{"m1"}) {
			t.Fatalf("List = %v, %v", ids, err)
		}
	}
	if ids, _ := c.List(context.Background(), b); !slices.Equal(ids, []string{"m2"}) || b.calls != 1 {
		t.Errorf("another base URL: %v after %d calls", ids, b.calls)
	}
	if a.calls != 1 {
		t.Errorf("the endpoint was asked %d times within the TTL", a.calls)
	}
	now = now.Add(ModelListTTL)
	_, _ = c.List(context.Background(), a)
	if a.calls != 2 {
		t.Errorf("after the TTL the endpoint was asked %d times, want 2", a.calls)
	}
}

func TestModelCacheDoesNotKeepAFailure(t *testing.T) {
	c := NewModelCache(nil)
	fail := true
	l := &lister{key: "k", list: func(context.Context) ([]string, error) {
		if fail {
			return nil, errors.New("boom")
		}
		return []string{"m"}, nil
	}}
	if _, err := c.List(context.Background(), l); err == nil {
		t.Fatal("a failure was not reported")
	}
	fail = false
	if ids, err := c.List(context.Background(), l); err != nil || len(ids) != 1 {
		t.Errorf("after a failure: %v, %v", ids, err)
	}
}

func TestModelCacheBoundsASlowEndpoint(t *testing.T) {
	c := NewModelCache(nil)
	c.timeout = time.Millisecond
	l := &lister{key: "http://slow/v1", list: func(ctx context.Context) ([]string, error) {
		<-ctx.Done() // answers only when given up on
		return nil, ctx.Err()
	}}
	_, err := c.List(context.Background(), l)
	if err == nil || !strings.Contains(err.Error(), "did not answer within") {
		t.Errorf("a slow endpoint gave %v", err)
	}
}
