package miner

import _ "gonum.org/v1/gonum/mat"
