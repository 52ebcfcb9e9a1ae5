package tk

import (
	"context"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// One SyncFeed entity from the replica (issue 37, point 3): the resource
// besluitbron://tk/entiteit/{guid} (entity_resource.go) is answered from
// BesluitBron's replica of the Kamer's SyncFeed when the replica has
// completed a pass and holds the entity, with no platform request. The
// replica holds each entity as the feed last gave it, so a held entity is
// answered whatever its category: the provenance says up to when the
// replica is complete. An entity it does not hold (a category it does not
// keep, one newer than its pass, one the Kamer removed) is asked of the
// platform, which says whether it exists.

// ParliamentEntity is the replica as the entity resource asks it.
type ParliamentEntity interface {
	// Entity is the entity guid (lower case) as the replica holds it,
	// with the provenance its answer carries; otherwise ok is false and
	// why says why, for the provenance of the platform's answer.
	Entity(ctx context.Context, guid string) (e localindex.Entity, provenance string, ok bool, why string)
}

var _ ParliamentEntity = parliamentWords{}

// entitiesOf is the entities of the replica the surface is offered, nil
// when it has none.
func entitiesOf(parliament ParliamentIndex) ParliamentEntity {
	e, _ := parliament.(ParliamentEntity)
	return e
}

// Entity reads guid from the replica held now (ParliamentEntity).
func (w parliamentWords) Entity(ctx context.Context, guid string) (localindex.Entity, string, bool, string) {
	idx, h, prog, why := w.ready()
	if why != "" {
		return localindex.Entity{}, "", false, why
	}
	held, err := idx.Get(ctx, []string{guid})
	if err != nil {
		return localindex.Entity{}, "", false, replica.LookupFailed(w.held, err)
	}
	e, ok := held[guid]
	if !ok {
		return localindex.Entity{}, "", false, notHeld(h.scope, guid)
	}
	return e, replica.Provenance(replicaSpec.Source, replicaSpec.Units(), prog) + publishedAt(e), true, ""
}

// notHeld is why the replica, keeping scope, did not answer for entity
// guid.
func notHeld(scope harvestScope, guid string) string {
	why := "the replica holds no entity " + guid
	if len(scope.Categories) > 0 {
		why += " (it keeps " + strings.Join(scope.Categories, ", ") + " only)"
	}
	return why
}

// publishedAt says when the feed published the version of e the replica
// holds, where it says.
func publishedAt(e localindex.Entity) string {
	if e.Updated == "" {
		return ""
	}
	return "; the entity as the feed published it at " + adapters.Cut(e.Updated, 40)
}
