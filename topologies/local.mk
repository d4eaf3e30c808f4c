# topologies/: pure generators from parameters to the fabric graph
