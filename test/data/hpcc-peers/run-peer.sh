#!/bin/bash
# run-peer.sh MEMBER CASEDIR SEED [extra args]: one run of a member in CASEDIR/seedN (nice 19).
# MEMBER hpcc: alibaba-edu/High-Precision-Congestion-Control 9f4be2a, scratch/third CONFIG,
#   the seed through ns-3's NS_GLOBAL_VALUE=RngRun=N.
# MEMBER ns3dc: inet-tub/ns3-datacenter 6ddb4a4, examples/PowerTCP/powertcp-evaluation-fairness
#   --conf=CONFIG --algorithm=CC --windowCheck=W --wien=false --RngRun=N.
set -e
m=$1; dir=$2; seed=$3; shift 3
mkdir -p $dir/seed$seed; cp $dir/config.txt $dir/topology.txt $dir/flows.txt $dir/trace.txt $dir/seed$seed/
cd $dir/seed$seed
case $m in
hpcc) B=/work/peers/hpcc/simulation/build
  NS_GLOBAL_VALUE="RngRun=$seed" LD_LIBRARY_PATH=$B nice -n 19 $B/scratch/third config.txt > log.txt 2>&1 ;;
ns3dc) B=/work/peers/ns3dc/simulator/ns-3.39/build
  cc=$(awk '$1=="CC_MODE"{print $2}' config.txt); w=$(awk '$1=="HAS_WIN"{print $2}' config.txt)
  LD_LIBRARY_PATH=$B/lib nice -n 19 $B/scratch/powertcp/ns3.39-powertcp-evaluation-fairness --conf=config.txt --algorithm=$cc --windowCheck=$w --wien=false --delayWien=false --RngRun=$seed "$@" > log.txt 2>&1 ;;
esac
