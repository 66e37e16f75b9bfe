package miner

import "github.com/drumql/drumql/internal/pkgerr"

// errorf is fmt.Errorf for the package's "miner: ..." messages: the wrapped
// errors of the package are formatted without their own "miner: ", so that
// a message names the package once however often it was wrapped (see
// pkgerr.Errorf); errors.Is and errors.As still see them.
func errorf(format string, args ...any) error {
	return pkgerr.Errorf("miner: ", format, args...)
}
