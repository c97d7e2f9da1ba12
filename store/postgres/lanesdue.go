package postgres

import (
	"fmt"
	"slices"
	"time"

	"github.com/schedbot/schedbot/store"
)

// QueueDueLanes reads the due outgoing items of the lanes not busy: the
// lanes are walked one index probe each (a loose index scan), a busy one
// without reading its items, and each other's first due items in queue
// order. Items queued before lanes were indexed (no lane) come after.
func (t *tx) QueueDueLanes(now time.Time, limit int, busy map[string]bool) ([]*store.QueueItem, bool, error) {
	if limit <= 0 {
		return []*store.QueueItem{}, true, nil
	}
	if err := t.flush(); err != nil {
		return nil, true, err
	}
	skip := make([][]byte, 0, len(busy))
	for l := range busy {
		skip = append(skip, []byte(l))
	}
	rows, err := t.tx.Query(t.ctx, `WITH RECURSIVE lanes(lane) AS (
			(SELECT lane FROM schedbot_queue WHERE orchestrator_id = $1 AND queue = 'outgoing' AND lane IS NOT NULL ORDER BY lane LIMIT 1)
			UNION ALL
			SELECT (SELECT q.lane FROM schedbot_queue q WHERE q.orchestrator_id = $1 AND q.queue = 'outgoing' AND q.lane > l.lane ORDER BY q.lane LIMIT 1)
			FROM lanes l WHERE l.lane IS NOT NULL)
		SELECT `+itemCols+` FROM (
			(SELECT i.item_id, i.queue, i.updated_ns, i.body, 0 AS part, l.lane AS lane
			FROM (SELECT lane FROM lanes WHERE lane IS NOT NULL AND NOT (lane = ANY($4::bytea[]))) l
			CROSS JOIN LATERAL (SELECT item_id, queue, updated_ns, body FROM schedbot_queue q
				WHERE q.orchestrator_id = $1 AND q.queue = 'outgoing' AND q.lane = l.lane AND (q.not_before_ns IS NULL OR q.not_before_ns <= $2)
				ORDER BY q.item_id LIMIT $3) i
			ORDER BY l.lane, i.item_id LIMIT $3)
			UNION ALL
			(SELECT item_id, queue, updated_ns, body, 1, NULL FROM schedbot_queue
			WHERE orchestrator_id = $1 AND queue = 'outgoing' AND lane IS NULL AND (not_before_ns IS NULL OR not_before_ns <= $2)
			ORDER BY item_id LIMIT $3)) due
		ORDER BY part, lane, item_id LIMIT $3`,
		t.s.orch, now.UnixNano(), limit, skip)
	if err != nil {
		return nil, true, fmt.Errorf("read due lanes: %w", err)
	}
	items, err := t.collectItems(rows)
	if err != nil {
		return nil, true, fmt.Errorf("read due lanes: %w", err)
	}
	// Items without an indexed lane: their lane's busy state is read here.
	items = slices.DeleteFunc(items, func(it *store.QueueItem) bool { return busy[store.LaneOf(it)] })
	return items, true, nil
}
