package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/schedbot/schedbot/functions"
	"github.com/schedbot/schedbot/store"
)

// Idempotent calls. Each call through `schedbot call` carries a request id
// (one per invocation, or --request-id); the call's result is recorded
// under it in the transaction of the call's effect, so a retry after a
// cut connection or a crashed daemon returns the first result instead of
// acting twice, through the daemon or directly on the store.
const (
	// maxRequestID bounds a request id's length.
	maxRequestID = 100
)

// readOnlyFunctions change nothing, so their results are not recorded.
var readOnlyFunctions = map[string]bool{"schedule.list": true, "schedule.show": true}

// NewRequestID is a fresh request id: a ULID, unique and sortable.
func NewRequestID() string { return ulid.Make().String() }

// CheckRequestID refuses an id that is empty, long, or has characters a
// shell or a log would mangle.
func CheckRequestID(id string) error {
	if id == "" || len(id) > maxRequestID || strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:-", r))
	}) >= 0 {
		return Usagef("--request-id %q: want 1 to %d letters, digits, '.', '_', ':' or '-'", id, maxRequestID)
	}
	return nil
}

// requestDigest is what a call asks for, so that a request id reused for
// another call is refused rather than answered with the first one's result.
func requestDigest(orchID, profile string, req functions.Request) string {
	h := sha256.New()
	for _, part := range []string{orchID, profile, req.Function, req.Actor.SenderID} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	var args bytes.Buffer
	if json.Compact(&args, req.Args) == nil {
		h.Write(args.Bytes())
	} else {
		h.Write(req.Args)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CallOnce runs req on oc at most once per request id and returns its
// result as JSON: the first result when the id was seen before. An empty
// id, or a function that changes nothing, just runs the call.
func CallOnce(ctx context.Context, oc *Orch, profile string, req functions.Request, requestID string) (json.RawMessage, error) {
	if requestID == "" || readOnlyFunctions[req.Function] {
		res, err := oc.Reg.Call(ctx, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	if err := CheckRequestID(requestID); err != nil {
		return nil, err
	}
	digest := requestDigest(oc.Cfg.ID, profile, req)
	var out json.RawMessage
	var res any
	ran := false
	err := oc.Store.Update(ctx, func(tx store.Tx) error {
		// Where transactions run at once (postgres), a retry arriving while
		// the first call is still in its transaction waits for it here, and
		// then reads its result, instead of acting too and failing on the
		// request id or the job's name.
		if l, ok := tx.(store.Locker); ok {
			if err := l.Lock("request:" + requestID); err != nil {
				return err
			}
		}
		prev, err := tx.RequestGet(requestID)
		if err == nil {
			if prev.Digest != digest {
				return Usagef("--request-id %s was used for another call (%s at %s); give each call its own id",
					requestID, prev.Function, prev.CreatedAt.Format(time.RFC3339))
			}
			out = prev.Result
			return nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		res, err = oc.Reg.CallTx(ctx, tx, req)
		if err != nil {
			return err // rolled back: nothing happened, nothing is recorded
		}
		if out, err = json.Marshal(res); err != nil {
			return err
		}
		now := time.Now().UTC()
		ran = true
		return tx.RequestPut(&store.Request{Key: requestID, Digest: digest, Function: req.Function, Result: out, CreatedAt: now})
	})
	if err != nil {
		return nil, err
	}
	if ran {
		oc.Reg.Committed(res)
	}
	return out, nil
}

// ResultFor is the Go type a function's result decodes into, so that the
// CLI prints an API result as it prints a direct one.
func ResultFor(fn string) any {
	switch fn {
	case "schedule.list":
		return &store.JobPage{}
	case "schedule.run_now":
		return &functions.RunNowResult{}
	case "message.post":
		return &functions.MessagePostResult{}
	case "schedule.create", "schedule.update", "schedule.show", "schedule.pause", "schedule.resume", "schedule.delete":
		return &functions.JobResult{}
	}
	return &json.RawMessage{}
}
