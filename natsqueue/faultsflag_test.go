package natsqueue

import "flag"

var faultsLong = flag.Bool("faults.long", false, "run the fault tests with many more faults (minutes)")
