// examples/verilator/tb/sim_main.cpp: runs the bench tb_fp8 until its $finish.
//
// Verilator's generated main (--main) always exits 0 after $finish and aborts on $fatal; a
// certification run needs an exit status that says pass or fail. This one lets $error report
// and carry on (the bench reports every mismatch, then finishes), and exits 1 when any $error
// was reported, 0 otherwise. It only ticks the model: the bench is all SystemVerilog.
#include <memory>

#include "Vtb_fp8.h"
#include "verilated.h"

int main(int argc, char** argv) {
  const auto context = std::make_unique<VerilatedContext>();
  context->commandArgs(argc, argv);
  context->errorLimit(1 << 30);  // $error reports, counts, and does not stop the simulation
  const auto top = std::make_unique<Vtb_fp8>(context.get());
  while (!context->gotFinish()) {
    top->eval();
    if (!top->eventsPending()) break;
    context->time(top->nextTimeSlot());
  }
  top->final();
  return context->errorCount() == 0 && context->gotFinish() ? 0 : 1;
}
