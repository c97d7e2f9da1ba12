package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/schedbot/schedbot/store"
)

// What conversations remember between messages. A value is the record's
// updatedAt(8) and its JSON, so that replacing or deleting it finds its
// index key without decoding it (a damaged record is still replaced).
var (
	bucketConversations   = []byte("conversations")    // key -> updatedAt(8) + JSON Conversation
	bucketConversationsAt = []byte("conversations_at") // updatedAt(8) + key -> nil, for pruning
)

func (t *tx) ConversationGet(key string) (_ *store.Conversation, err error) {
	defer guard(&err)
	b := t.b.Bucket(bucketConversations)
	var v []byte
	if b != nil && key != "" { // a file opened read-only before its first write has none
		v = b.Get([]byte(key))
	}
	if v == nil {
		return nil, notFound("conversation", key)
	}
	if len(v) < 8 {
		return nil, &store.RecordError{Kind: "conversation", ID: key, Err: errors.New("value too short")}
	}
	return decode[store.Conversation]("conversation", []byte(key), v[8:])
}

func (t *tx) ConversationPut(c *store.Conversation) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	if c.Key == "" {
		return errors.New("put conversation: empty key")
	}
	body, err := encode(c)
	if err != nil {
		return fmt.Errorf("encode conversation %s: %w", c.Key, err)
	}
	if err := t.conversationDelete([]byte(c.Key)); err != nil {
		return err
	}
	at := timeKey(c.UpdatedAt)
	if err := t.b.Bucket(bucketConversations).Put([]byte(c.Key), append(bytes.Clone(at), body...)); err != nil {
		return err
	}
	return t.b.Bucket(bucketConversationsAt).Put(append(at, c.Key...), nil)
}

func (t *tx) ConversationDelete(key string) (err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return err
	}
	if key == "" || t.b.Bucket(bucketConversations).Get([]byte(key)) == nil {
		return notFound("conversation", key)
	}
	return t.conversationDelete([]byte(key))
}

// conversationDelete removes key and its index entry, if recorded.
func (t *tx) conversationDelete(key []byte) error {
	b := t.b.Bucket(bucketConversations)
	v := b.Get(key)
	if v == nil {
		return nil
	}
	if len(v) >= 8 {
		if err := t.b.Bucket(bucketConversationsAt).Delete(append(bytes.Clone(v[:8]), key...)); err != nil {
			return err
		}
	}
	return b.Delete(key)
}

func (t *tx) ConversationPrune(before time.Time, limit int) (_ int, err error) {
	defer guard(&err)
	if err := t.writable(); err != nil {
		return 0, err
	}
	return pruneByTime(t.b.Bucket(bucketConversations), t.b.Bucket(bucketConversationsAt), before, limit)
}
