package fault

import "context"

func runThrottle(context.Context, *Harness, Config) (r Row) { r.failf("not implemented"); return r }
