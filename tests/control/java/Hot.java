// t1052's workload: two hot methods with the same body, hotA called twice
// for each call of hotB, so hotA takes 2/3 of the time and hotB 1/3.
// Runs for the milliseconds given (default 2000), then prints "done".
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
        long sink = 0;
        do {
            sink += hotA(1000000);
            sink += hotA(1000000);
            sink += hotB(1000000);
        } while (System.nanoTime() < end);
        // the sum is used, so the loops are not compiled away
        System.out.println(sink == 42 ? "unlikely" : "done");
    }
}
