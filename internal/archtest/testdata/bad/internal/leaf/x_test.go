package leaf_test

import _ "github.com/drumql/drumql/internal/leaf"
