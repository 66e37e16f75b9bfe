package datalog
