package main

import _ "github.com/drumql/drumql/store"
