package store

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// AuditPruned is the action of the checkpoint record that pruning the
// audit log appends: its After is an AuditCheckpoint naming the last
// record pruned, so that the chain still verifies from the first record
// kept.
const AuditPruned = "audit.pruned"

// AuditCheckpoint is the After of an AuditPruned record.
type AuditCheckpoint struct {
	Through uint64 `json:"through"` // the last seq pruned
	Hash    string `json:"hash"`    // its hash, hex: the prevHash of record Through+1
}

// macLen is the length of the member AuditSeal appends: ,"mac":"<64 hex>"}.
const macLen = len(`,"mac":""}`) + 64

// AuditSeal appends to an encoded audit event (a JSON object with no mac
// member) its MAC under key: HMAC-SHA256 over the previous record's hash
// and the body. Someone without the key cannot re-seal a record they
// edit, nor the records after it they would re-hash.
func AuditSeal(key, prev, body []byte) (sealed []byte, mac string) {
	m := hmac.New(sha256.New, key)
	m.Write(prev)
	m.Write(body)
	mac = hex.EncodeToString(m.Sum(nil))
	sealed = append(bytes.Clone(body[:len(body)-1]), `,"mac":"`+mac+`"}`...)
	return sealed, mac
}

// auditUnseal checks the MAC AuditSeal appended to body and returns why
// it does not hold, or "".
func auditUnseal(key, prev, body []byte) string {
	n := len(body)
	if n < macLen+1 || !bytes.Equal(body[n-macLen:n-macLen+len(`,"mac":"`)], []byte(`,"mac":"`)) {
		return "carries no MAC: written without the audit key, or the MAC was stripped"
	}
	plain := append(bytes.Clone(body[:n-macLen]), '}')
	if _, mac := AuditSeal(key, prev, plain); !hmac.Equal([]byte(mac), body[n-macLen+len(`,"mac":"`):n-2]) {
		return "MAC does not match (edited, or sealed with another key)"
	}
	return ""
}

// ChainVerifier checks an audit chain record by record, oldest first,
// as stored (seq, hash, body); both stores' AuditVerify use it. The chain
// may begin past record 1 when a checkpoint in it names the records
// pruned before its first.
type ChainVerifier struct {
	Key []byte // nil: MACs are not checked

	n          int
	want       uint64 // the next seq expected; 0 before the first record
	prev       []byte
	first      uint64
	firstPrev  []byte
	checkpoint *AuditCheckpoint
}

// Next checks one record and returns a *ChainError when it does not hold.
func (v *ChainVerifier) Next(seq uint64, hash, body []byte) error {
	var named struct {
		Seq      uint64          `json:"seq"`
		Action   string          `json:"action"`
		After    json.RawMessage `json:"after"`
		PrevHash string          `json:"prevHash"`
	}
	if err := json.Unmarshal(body, &named); err != nil {
		return &ChainError{Seq: seq, Reason: "body is not an audit record (edited)"}
	}
	if v.want == 0 {
		v.first, v.want = seq, seq
		if seq > 1 {
			// Records before it were pruned: the chain goes on from the
			// hash it names, which a checkpoint must name too (End).
			p, err := hex.DecodeString(named.PrevHash)
			if err != nil {
				return &ChainError{Seq: seq, Reason: "prevHash is not hex (edited)"}
			}
			v.prev, v.firstPrev = p, p
		}
	}
	if seq != v.want {
		return &ChainError{Seq: v.want, Reason: fmt.Sprintf("missing (the next record is %d)", seq)}
	}
	if named.Seq != seq {
		return &ChainError{Seq: seq, Reason: fmt.Sprintf("names seq %d (edited)", named.Seq)}
	}
	if !bytes.Equal(AuditHash(v.prev, body), hash) {
		return &ChainError{Seq: seq, Reason: "hash does not match its contents and the previous record (edited)"}
	}
	if v.Key != nil {
		if why := auditUnseal(v.Key, v.prev, body); why != "" {
			return &ChainError{Seq: seq, Reason: why}
		}
	}
	if named.Action == AuditPruned {
		var cp AuditCheckpoint
		if err := json.Unmarshal(named.After, &cp); err != nil {
			return &ChainError{Seq: seq, Reason: "checkpoint does not read (edited)"}
		}
		v.checkpoint = &cp
	}
	v.prev = bytes.Clone(hash)
	v.want++
	v.n++
	return nil
}

// Checked is how many records Next found whole.
func (v *ChainVerifier) Checked() int { return v.n }

// End checks the chain against its recorded head and returns how many
// records were checked.
func (v *ChainVerifier) End(headSeq uint64, headHash []byte) (int, error) {
	last := v.want - 1
	if v.want == 0 {
		last = 0
	}
	if headSeq != last {
		return v.n, &ChainError{Seq: last + 1, Reason: fmt.Sprintf("missing: the log ends at %d but %d were written", last, headSeq)}
	}
	if !bytes.Equal(headHash, v.prev) {
		return v.n, &ChainError{Seq: headSeq, Reason: "does not match the recorded head of the chain"}
	}
	if v.first > 1 {
		cp := v.checkpoint
		if cp == nil || cp.Through != v.first-1 || cp.Hash != hex.EncodeToString(v.firstPrev) {
			return v.n, &ChainError{Seq: 1, Reason: fmt.Sprintf("missing: the log begins at %d and no checkpoint names the records before it", v.first)}
		}
	}
	return v.n, nil
}
