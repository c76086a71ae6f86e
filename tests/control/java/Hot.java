// t1052's workload: two hot methods with the same body, hotA called twice
// for each call of hotB, so hotA takes about 2/3 of the time and hotB 1/3.
// Runs for the milliseconds given (default 2000), then prints the cpu
// time of this thread spent in each, as measured around each call
// ("truth NS_A NS_B": the truth a profile's shares are checked against;
// cpu time, not wall time: a thread preempted on a busy machine is not
// sampled), then "done".
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class Hot {
    static long hotA(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += (s ^ i) * 31 + (i >>> 3);
        }
        return s;
    }

    static long hotB(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += (s ^ i) * 31 + (i >>> 3);
        }
        return s;
    }

    public static void main(String[] args) {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        long end = System.nanoTime() + ms * 1000000L;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sink = 0, inA = 0, inB = 0, t0, t1, t2;
        do {
            // a call is about a millisecond: the clock's cost is noise
            t0 = mx.getCurrentThreadCpuTime();
            sink += hotA(1000000);
            sink += hotA(1000000);
            t1 = mx.getCurrentThreadCpuTime();
            sink += hotB(1000000);
            t2 = mx.getCurrentThreadCpuTime();
            inA += t1 - t0;
            inB += t2 - t1;
        } while (System.nanoTime() < end);
        System.out.println("truth " + inA + " " + inB);
        // the sum is used, so the loops are not compiled away
        System.out.println(sink == 42 ? "unlikely" : "done");
    }
}
