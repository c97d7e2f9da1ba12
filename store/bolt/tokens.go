package bolt

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/schedbot/schedbot/store"
)

// HTTP API tokens, by hash; few enough to list by reading them all.
var bucketTokens = []byte("tokens") // hash -> JSON Token

func (t *tx) TokenGet(hash string) (_ *store.Token, err error) {
	defer guard(&err)
	b := t.b.Bucket(bucketTokens)
	var v []byte
	if b != nil && hash != "" { // a file opened read-only before its first write has none
		v = b.Get([]byte(hash))
	}
	if v == nil {
		return nil, notFound("token", hash)
	}
	return decode[store.Token]("token", []byte(hash), v)
}

func (t *tx) TokenPut(tok *store.Token) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	if tok.Hash == "" {
		return errors.New("put token: empty hash")
	}
	body, err := encode(tok)
	if err != nil {
		return fmt.Errorf("encode token %s: %w", tok.ID, err)
	}
	return t.b.Bucket(bucketTokens).Put([]byte(tok.Hash), body)
}

func (t *tx) TokenList() (_ []*store.Token, err error) {
	defer guard(&err)
	b := t.b.Bucket(bucketTokens)
	if b == nil {
		return nil, nil
	}
	var out []*store.Token
	err = b.ForEach(func(k, v []byte) error {
		tok, err := decode[store.Token]("token", k, v)
		if err != nil {
			return err
		}
		out = append(out, tok)
		return nil
	})
	slices.SortFunc(out, func(a, b *store.Token) int { return strings.Compare(a.ID, b.ID) })
	return out, err
}
