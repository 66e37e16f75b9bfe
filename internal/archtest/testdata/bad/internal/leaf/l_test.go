package leaf

import _ "github.com/drumql/drumql/internal/other"
