package fault

import "context"

func runCrash(context.Context, *Harness, Config) (r Row)    { r.failf("not implemented"); return r }
func runThrottle(context.Context, *Harness, Config) (r Row) { r.failf("not implemented"); return r }
