#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Launch wrapper for Open MPI ranks in network namespaces (one mpirun, all
# ranks "local" to it): rank i enters the i-th namespace of SPRAY_MPI_NETNS
# (comma-separated) before it starts, so its libfabric endpoint lives
# there. Open MPI's own wire-up (PMIx) runs over Unix sockets, which
# network namespaces do not separate.
#
#   mpirun -x SPRAY_MPI_NETNS=ns0,ns1,... mpi_netns.sh PROGRAM ARGS...
r=${OMPI_COMM_WORLD_RANK:?not started by Open MPI}
ns=$(echo "$SPRAY_MPI_NETNS" | cut -d, -f$((r + 1)))
[ -n "$ns" ] || { echo "mpi_netns.sh: no namespace for rank $r" >&2; exit 1; }
exec ip netns exec "$ns" "$@"
