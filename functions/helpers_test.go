package functions_test

import stdctx "context"

func context() stdctx.Context { return stdctx.Background() }
