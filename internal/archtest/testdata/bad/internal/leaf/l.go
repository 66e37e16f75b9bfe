package leaf
