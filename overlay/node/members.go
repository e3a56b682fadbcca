package node

import (
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
)

// Remembered members. A node keeps, in its state (meta key "members", a
// JSON list of addresses), the nodes it last had as neighbours in the
// tree: the root's player, its leaf's father's and its routing vertices'
// fathers' and children's players. A node started again with neither
// Join nor Peers rejoins through them (Join's protocol, tried in turn)
// instead of starting a tree of its own; every node also adds them to the
// members it joins through after Join or Peers. The list is written when
// the neighbours change, never emptied (a node alone, or joining, keeps
// the list of its last tree).

// maxRemembered bounds the list: with a join every 4 heartbeats and each
// member asked twice, a node whose remembered members are all gone starts
// a new overlay after at most 8 × 2 × 4 heartbeats (and at least the
// orphan wait).
const maxRemembered = 8

// neighbourNodes lists the nodes of this node's tree neighbours (itself
// left out, no repeat, at most maxRemembered): the root's player first,
// then its leaf's father's, then its routing vertices' neighbours'.
func (n *Node) neighbourNodes() []string {
	var s []string
	add := func(a string) {
		if a != "" && a != n.self && !slices.Contains(s, a) && len(s) < maxRemembered {
			s = append(s, a)
		}
	}
	if n.leaf == nil {
		return nil
	}
	add(n.root.Node)
	add(n.leaf.father.Node)
	for _, id := range n.routerIDs() {
		r := n.routers[id]
		if r.detached {
			continue
		}
		add(r.view.Father.Node)
		add(r.view.Left.Node)
		add(r.view.Right.Node)
	}
	return s
}

// rememberNeighbours stores this node's neighbours when they changed
// (at each heartbeat; a write only after a change of the tree around it).
func (n *Node) rememberNeighbours() {
	if !n.joinAt.IsZero() || !n.joined() {
		return // joining: the neighbours are not known yet
	}
	s := n.neighbourNodes()
	if len(s) == 0 || slices.Equal(s, n.remembered) {
		return
	}
	n.remembered = s
	b, err := json.Marshal(s)
	if err != nil {
		return
	}
	n.putMeta("members", string(b))
}

// loadRemembered reads the remembered members (none in a state directory
// of an older version). An entry that is not an address is skipped and
// logged; an unreadable list is logged and taken for none.
func (n *Node) loadRemembered() {
	var v string
	err := n.st.db.QueryRow(`SELECT v FROM meta WHERE k = 'members'`).Scan(&v)
	if err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			n.logf("remembered members: %v: none", err)
		}
		return
	}
	var s []string
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		n.logf("remembered members %q: %v: none", v, err)
		return
	}
	for _, a := range s {
		if err := validNodeAddr("remembered member", a); err != nil {
			n.logf("%v: skipped", err)
			continue
		}
		if a != n.self && !slices.Contains(n.remembered, a) && len(n.remembered) < maxRemembered {
			n.remembered = append(n.remembered, a)
		}
	}
}
