// A file of another package: the directory cannot be read.
package other
